; mcp-resume transition-system query: initiation.session-identity-stable.step
; session-identity-stable.step: no step has been taken, so the monitor of this step property has seen no violation
; profile: boundary
; expected: unsat
(set-option :produce-unsat-cores true)
(set-option :random-seed 0)
(set-option :rlimit 20000000)
(set-option :smt.relevancy 2)
(set-info :status unknown)
(declare-fun monitor.session-identity-stable.step () Bool)
(declare-fun init.monitor () Bool)
(declare-fun goal () Bool)
(assert
 (let (($x959 (not monitor.session-identity-stable.step)))
 (=> init.monitor $x959)))
(assert
 (=> goal monitor.session-identity-stable.step))
(check-sat-assuming (init.monitor goal))
(get-unsat-core)
