; mcp-resume transition-system query: initiation.unknown-session-404.step
; unknown-session-404.step: no step has been taken, so the monitor of this step property has seen no violation
; profile: boundary
; expected: unsat
(set-option :produce-unsat-cores true)
(set-option :random-seed 0)
(set-option :rlimit 20000000)
(set-option :smt.relevancy 2)
(set-info :status unknown)
(declare-fun monitor.unknown-session-404.step () Bool)
(declare-fun init.monitor () Bool)
(declare-fun goal () Bool)
(assert
 (let (($x988 (not monitor.unknown-session-404.step)))
 (=> init.monitor $x988)))
(assert
 (=> goal monitor.unknown-session-404.step))
(check-sat-assuming (init.monitor goal))
(get-unsat-core)
