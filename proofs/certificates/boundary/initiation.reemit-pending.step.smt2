; mcp-resume transition-system query: initiation.reemit-pending.step
; reemit-pending.step: no step has been taken, so the monitor of this step property has seen no violation
; profile: boundary
; expected: unsat
(set-option :produce-unsat-cores true)
(set-option :random-seed 0)
(set-option :rlimit 20000000)
(set-option :smt.relevancy 2)
(set-info :status unknown)
(declare-fun monitor.reemit-pending.step () Bool)
(declare-fun init.monitor () Bool)
(declare-fun goal () Bool)
(assert
 (let (($x996 (not monitor.reemit-pending.step)))
 (=> init.monitor $x996)))
(assert
 (=> goal monitor.reemit-pending.step))
(check-sat-assuming (init.monitor goal))
(get-unsat-core)
