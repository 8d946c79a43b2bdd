; mcp-resume transition-system query: initiation.reemit-keeps-pending.step
; reemit-keeps-pending.step: no step has been taken, so the monitor of this step property has seen no violation
; profile: boundary
; expected: unsat
(set-option :produce-unsat-cores true)
(set-option :random-seed 0)
(set-option :rlimit 20000000)
(set-option :smt.relevancy 2)
(set-info :status unknown)
(declare-fun monitor.reemit-keeps-pending.step () Bool)
(declare-fun init.monitor () Bool)
(declare-fun goal () Bool)
(assert
 (let (($x893 (not monitor.reemit-keeps-pending.step)))
 (=> init.monitor $x893)))
(assert
 (=> goal monitor.reemit-keeps-pending.step))
(check-sat-assuming (init.monitor goal))
(get-unsat-core)
