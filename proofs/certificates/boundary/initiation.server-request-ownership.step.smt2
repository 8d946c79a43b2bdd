; mcp-resume transition-system query: initiation.server-request-ownership.step
; server-request-ownership.step: no step has been taken, so the monitor of this step property has seen no violation
; profile: boundary
; expected: unsat
(set-option :produce-unsat-cores true)
(set-option :random-seed 0)
(set-option :rlimit 20000000)
(set-option :smt.relevancy 2)
(set-info :status unknown)
(declare-fun monitor.server-request-ownership.step () Bool)
(declare-fun init.monitor () Bool)
(declare-fun goal () Bool)
(assert
 (let (($x916 (not monitor.server-request-ownership.step)))
 (=> init.monitor $x916)))
(assert
 (=> goal monitor.server-request-ownership.step))
(check-sat-assuming (init.monitor goal))
(get-unsat-core)
