; mcp-resume transition-system query: initiation.no-replay-on-session-resume.step
; no-replay-on-session-resume.step: no step has been taken, so the monitor of this step property has seen no violation
; profile: boundary
; expected: unsat
(set-option :produce-unsat-cores true)
(set-option :random-seed 0)
(set-option :rlimit 20000000)
(set-option :smt.relevancy 2)
(set-info :status unknown)
(declare-fun monitor.no-replay-on-session-resume.step () Bool)
(declare-fun init.monitor () Bool)
(declare-fun goal () Bool)
(assert
 (let (($x891 (not monitor.no-replay-on-session-resume.step)))
 (=> init.monitor $x891)))
(assert
 (=> goal monitor.no-replay-on-session-resume.step))
(check-sat-assuming (init.monitor goal))
(get-unsat-core)
