; mcp-resume transition-system query: initiation.no-duplicate-tool-call.step
; no-duplicate-tool-call.step: no step has been taken, so the monitor of this step property has seen no violation
; profile: boundary
; expected: unsat
(set-option :produce-unsat-cores true)
(set-option :random-seed 0)
(set-option :rlimit 20000000)
(set-option :smt.relevancy 2)
(set-info :status unknown)
(declare-fun monitor.no-duplicate-tool-call.step () Bool)
(declare-fun init.monitor () Bool)
(declare-fun goal () Bool)
(assert
 (let (($x888 (not monitor.no-duplicate-tool-call.step)))
 (=> init.monitor $x888)))
(assert
 (=> goal monitor.no-duplicate-tool-call.step))
(check-sat-assuming (init.monitor goal))
(get-unsat-core)
