; mcp-resume transition-system query: initiation.no-reemit-on-stream-resume.step
; no-reemit-on-stream-resume.step: no step has been taken, so the monitor of this step property has seen no violation
; profile: boundary
; expected: unsat
(set-option :produce-unsat-cores true)
(set-option :random-seed 0)
(set-option :rlimit 20000000)
(set-option :smt.relevancy 2)
(set-info :status unknown)
(declare-fun monitor.no-reemit-on-stream-resume.step () Bool)
(declare-fun init.monitor () Bool)
(declare-fun goal () Bool)
(assert
 (let (($x976 (not monitor.no-reemit-on-stream-resume.step)))
 (=> init.monitor $x976)))
(assert
 (=> goal monitor.no-reemit-on-stream-resume.step))
(check-sat-assuming (init.monitor goal))
(get-unsat-core)
