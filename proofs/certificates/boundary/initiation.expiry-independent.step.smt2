; mcp-resume transition-system query: initiation.expiry-independent.step
; expiry-independent.step: no step has been taken, so the monitor of this step property has seen no violation
; profile: boundary
; expected: unsat
(set-option :produce-unsat-cores true)
(set-option :random-seed 0)
(set-option :rlimit 20000000)
(set-option :smt.relevancy 2)
(set-info :status unknown)
(declare-fun monitor.expiry-independent.step () Bool)
(declare-fun init.monitor () Bool)
(declare-fun goal () Bool)
(assert
 (let (($x1015 (not monitor.expiry-independent.step)))
 (=> init.monitor $x1015)))
(assert
 (=> goal monitor.expiry-independent.step))
(check-sat-assuming (init.monitor goal))
(get-unsat-core)
