; mcp-resume transition-system query: initiation.reject-foreign-event-id.step
; reject-foreign-event-id.step: no step has been taken, so the monitor of this step property has seen no violation
; profile: boundary
; expected: unsat
(set-option :produce-unsat-cores true)
(set-option :random-seed 0)
(set-option :rlimit 20000000)
(set-option :smt.relevancy 2)
(set-info :status unknown)
(declare-fun monitor.reject-foreign-event-id.step () Bool)
(declare-fun init.monitor () Bool)
(declare-fun goal () Bool)
(assert
 (let (($x905 (not monitor.reject-foreign-event-id.step)))
 (=> init.monitor $x905)))
(assert
 (=> goal monitor.reject-foreign-event-id.step))
(check-sat-assuming (init.monitor goal))
(get-unsat-core)
