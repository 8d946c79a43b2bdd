"""The transition system's invariants are proven for any number of entities, and the
proofs are not vacuous: a weakened invariant or a broken transition formula makes
consecution fail with a readable counterexample to induction."""

from dataclasses import replace

import pytest

from mcp_resume.proofs.system import transitions as ts_transitions
from mcp_resume.proofs.system.invariants import INDUCTIVE, STEP_PROPERTIES, assumptions, by_id
from mcp_resume.proofs.system.proofs import Encoding, _consecution, obligations, run_obligation
from mcp_resume.proofs.system.vocabulary import ActionKind
from mcp_resume.spec.profiles import Profile


def test_a_weakened_invariant_fails_consecution_with_a_readable_counterexample():
    encoding = Encoding(Profile.BOUNDARY)
    unstrengthened = replace(by_id("event-id-unique.resolves"), needs=())
    result = run_obligation(encoding, _consecution(unstrengthened, ActionKind.EMIT_EVENT))
    assert result.result == "sat" and result.holds is False
    picture = result.counterexample
    assert picture.startswith("counterexample to induction of event-id-unique.resolves")
    assert "action: emit_event(stream=T" in picture and "before" in picture and "after" in picture
    assert "S?" in picture  # the stream belongs to a session id never issued: what the strengthening forbids


def test_an_off_by_one_replay_in_the_transition_formula_breaks_replay_suffix(monkeypatch):
    reconnect = ts_transitions._EFFECTS[ActionKind.RECONNECT]

    def off_by_one(step, semantics):  # design 7's fault written into the spec's formula
        effect = reconnect(step, semantics)
        L, A, X, O, replayed = step.L, step.A, step.X, step.O, effect.delivered
        cursor = lambda e: L.and_(L.eq(e, A.eh), A.eh_present, L.not_(A.eh_malformed), X.e_issued(A.eh), L.eq(O.status, L.int_(200)))
        effect.delivered = lambda e: L.or_(replayed(e), cursor(e))
        return effect

    monkeypatch.setitem(ts_transitions._EFFECTS, ActionKind.RECONNECT, off_by_one)
    result = run_obligation(Encoding(Profile.BOUNDARY), _consecution(by_id("replay-suffix.step"), ActionKind.RECONNECT))
    assert result.result == "sat"
    assert "action: reconnect(session=S" in result.counterexample and "last_event_id=E" in result.counterexample
    assert "status 200" in result.counterexample


def test_an_expiry_that_ends_the_session_breaks_expiry_independent():
    def ends_session(kind, conjuncts):
        if kind is not ActionKind.EXPIRE_STREAM:
            return conjuncts
        return [c for c in conjuncts if c.name != "tr.expire_stream.s_live.frame"]

    encoding = Encoding(Profile.BOUNDARY, mutate=ends_session)
    result = run_obligation(encoding, _consecution(by_id("expiry-independent.step"), ActionKind.EXPIRE_STREAM))
    assert result.result == "sat"
    assert "session S1" in result.counterexample and "ended" in result.counterexample


def test_every_strengthening_named_is_an_invariant_that_is_itself_proven():
    for invariant in INDUCTIVE + STEP_PROPERTIES:
        assert {i.id for i in assumptions(invariant)} >= set(invariant.needs)


def test_a_sessionless_profile_is_refused():
    with pytest.raises(ValueError, match="not modelled"):
        Encoding(Profile.MCP_2026_07_28)


def test_obligations_are_listed_in_a_fixed_order_with_unique_ids():
    ids = [o.id for o in obligations()]
    assert len(ids) == len(set(ids))
    assert ids == [o.id for o in obligations()]
