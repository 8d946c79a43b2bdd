; mcp-resume transition-system query: initiation.event-id-unique.step
; event-id-unique.step: no step has been taken, so the monitor of this step property has seen no violation
; profile: boundary
; expected: unsat
(set-option :produce-unsat-cores true)
(set-option :random-seed 0)
(set-option :rlimit 20000000)
(set-option :smt.relevancy 2)
(set-info :status unknown)
(declare-fun monitor.event-id-unique.step () Bool)
(declare-fun init.monitor () Bool)
(declare-fun goal () Bool)
(assert
 (let (($x900 (not monitor.event-id-unique.step)))
 (=> init.monitor $x900)))
(assert
 (=> goal monitor.event-id-unique.step))
(check-sat-assuming (init.monitor goal))
(get-unsat-core)
