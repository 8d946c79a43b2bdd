; mcp-resume transition-system query: initiation.replay-suffix.step
; replay-suffix.step: no step has been taken, so the monitor of this step property has seen no violation
; profile: boundary
; expected: unsat
(set-option :produce-unsat-cores true)
(set-option :random-seed 0)
(set-option :rlimit 20000000)
(set-option :smt.relevancy 2)
(set-info :status unknown)
(declare-fun monitor.replay-suffix.step () Bool)
(declare-fun init.monitor () Bool)
(declare-fun goal () Bool)
(assert
 (let (($x1027 (not monitor.replay-suffix.step)))
 (=> init.monitor $x1027)))
(assert
 (=> goal monitor.replay-suffix.step))
(check-sat-assuming (init.monitor goal))
(get-unsat-core)
