"""The invariants of DESIGN.md §4, as predicates the checkers share.

Two kinds, both named by their catalog rule id:

- *state invariants* ``f(state) -> list[str]`` hold in every reachable state of
  the spec (checked by the Hypothesis machine and, later, the explorer and Z3);
- *transition checks* ``f(transition) -> list[str]`` judge one step. The
  transition's ``before``, ``outcome`` and ``after`` come from the spec; its
  ``observation`` may come from a server under test (translated to the spec's
  handles), so the same predicate that checks the spec also checks a server.

Every predicate returns the list of violations it found, each a sentence in the
vocabulary of DESIGN.md §1; an empty list means the invariant holds.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable

from .actions import ExpireStream
from .catalog import AGREEMENT
from .decision import Branch
from .state import SessionStatus, State, StreamStatus
from .transitions import Transition


@dataclass(frozen=True, slots=True)
class Finding:
    """One violation: the rule broken and what was seen."""

    rule: str
    message: str


# -- state invariants -------------------------------------------------------------


def event_id_unique(state: State) -> list[str]:
    problems = [f"event id {eid} is used {n} times" for eid, n in Counter(e.id for e in state.events).items() if n > 1]
    for event in state.events:
        stream = state.stream(event.stream)
        if stream is None or state.session(stream.session) is None:
            problems.append(f"event {event.id} resolves to no (session, stream)")
    return problems


def no_cross_session_state(state: State) -> list[str]:
    problems = []
    for entry in state.client:
        for stream_id, event_id in entry.cursors:
            event = state.event(event_id)
            if event is None or event.stream != stream_id or state.session_of_event(event_id) != entry.session:
                problems.append(f"client cursor {event_id} of stream {stream_id} is not an event of session {entry.session}")
    return problems


def server_request_ownership_state(state: State) -> list[str]:
    problems = []
    for request in state.requests:
        stream = state.stream(request.stream)
        if stream is None or stream.session != request.session:
            problems.append(f"server request {request.id} of {request.session} was issued on a stream of another session")
    for event in state.events:
        request = state.request(event.request)
        if event.request is not None and (request is None or request.session != state.session_of_event(event.id)):
            problems.append(f"event {event.id} carries server request {event.request} of another session")
    for entry in state.client:
        for request_id in entry.seen:
            request = state.request(request_id)
            if request is None or request.session != entry.session:
                problems.append(f"client holds server request {request_id} under {entry.session}, which did not issue it")
    return problems


def expiry_independent_state(state: State) -> list[str]:
    problems = []
    for session in state.sessions:
        if session.status is SessionStatus.LIVE:
            continue
        for stream in state.streams_of(session.id):
            if stream.retained or stream.connected:
                problems.append(f"stream {stream.id} of ended session {session.id} is still {stream.status.value}")
    return problems


def session_identity_stable_state(state: State) -> list[str]:
    return [f"session id {sid} names {n} sessions" for sid, n in Counter(s.id for s in state.sessions).items() if n > 1]


STATE_INVARIANTS: dict[str, Callable[[State], list[str]]] = {
    "event-id-unique": event_id_unique,
    "no-cross-session": no_cross_session_state,
    "server-request-ownership": server_request_ownership_state,
    "expiry-independent": expiry_independent_state,
    "session-identity-stable": session_identity_stable_state,
}


# -- transition checks --------------------------------------------------------------


def status_check(t: Transition) -> list[str]:
    """The status is one the profile accepts for the branch; a refusal delivers nothing."""
    if t.outcome is None:
        return []
    problems = []
    status = t.observation.status
    if status not in t.outcome.statuses:
        accepted = _describe_statuses(t.outcome.statuses)
        problems.append(f"{t.outcome.branch.value}: answered {status}, expected {accepted}")
    elif status != t.outcome.status and _is_refusal(status) and t.observation.events:
        problems.append(f"{t.outcome.branch.value}: refused with {status} yet delivered {len(t.observation.events)} event(s)")
    return problems


def replay_suffix(t: Transition) -> list[str]:
    if not _succeeded(t, Branch.STREAM_RESUMPTION):
        return []
    replayed = tuple(d.event for d in t.observation.events if t.before.event(d.event) is not None)
    expected = t.outcome.replay
    if replayed == expected:
        return []
    return [f"resumed stream {t.outcome.stream} after {t.action.last_event_id}: replayed {_ids(replayed)}, expected {_ids(expected)}{_suffix_defect(replayed, expected, t)}"]


def no_cross_session(t: Transition) -> list[str]:
    session = getattr(t.action, "session", None)
    if t.outcome is None or session is None:
        return []
    problems = []
    for item in t.observation.events:
        owner = t.after.session_of_event(item.event)
        if owner is not None and owner != session:
            problems.append(f"delivered event {item.event} of session {owner} under session {session}")
        elif t.outcome.branch is Branch.STREAM_RESUMPTION and t.before.event(item.event) is not None:
            if t.before.event(item.event).stream != t.outcome.stream:
                problems.append(f"replayed event {item.event} of stream {t.before.event(item.event).stream} on stream {t.outcome.stream}")
    return problems


def no_replay_on_session_resume(t: Transition) -> list[str]:
    if not _succeeded(t, Branch.SESSION_RESUMPTION):
        return []
    replayed = [d.event for d in t.observation.events if t.before.event(d.event) is not None]
    return [f"session resumption of {t.action.session} replayed past events {_ids(replayed)}"] if replayed else []


def no_reemit_on_stream_resume(t: Transition) -> list[str]:
    if not _succeeded(t, Branch.STREAM_RESUMPTION):
        return []
    extra = [d for d in t.observation.events if t.before.event(d.event) is None]
    if not extra:
        return []
    carried = [d.request or d.event for d in extra]
    return [f"stream resumption of {t.outcome.stream} also sent new events {_ids(carried)}"]


def reemit_pending(t: Transition) -> list[str]:
    return [message for rule, message in _reemit_misses(t) if rule == "reemit-pending"]


def reemit_keeps_pending(t: Transition) -> list[str]:
    problems = [message for rule, message in _reemit_misses(t) if rule == "reemit-keeps-pending"]
    if _succeeded(t, Branch.SESSION_RESUMPTION):
        changed = [r.id for r in t.before.requests if t.after.request(r.id).status is not r.status]
        problems += [f"session resumption resolved server requests {_ids(changed)}"] if changed else []
    return problems


def server_request_ownership(t: Transition) -> list[str]:
    session = getattr(t.action, "session", None)
    if t.outcome is None or session is None:
        return []
    problems = []
    for item in t.observation.events:
        request = t.after.request(item.request)
        if item.request is not None and (request is None or request.session != session):
            owner = request.session if request else "no session"
            problems.append(f"delivered server request {item.request} of {owner} under session {session}")
    return problems


def event_id_resolves(t: Transition) -> list[str]:
    unknown = [d.event for d in t.observation.events if t.after.event(d.event) is None]
    return [f"delivered event id {eid} resolves to no event of any stream" for eid in unknown]


def session_identity_stable(t: Transition) -> list[str]:
    if t.outcome is None or t.outcome.branch not in (Branch.STREAM_RESUMPTION, Branch.SESSION_RESUMPTION):
        return []
    session = t.action.session
    if t.before.session(session) != t.after.session(session):
        return [f"resumption changed session {session}"]
    return []


def expiry_independent(t: Transition) -> list[str]:
    if not isinstance(t.action, ExpireStream):
        return []
    stream = t.before.stream(t.action.stream)
    problems = []
    if t.before.session(stream.session) != t.after.session(stream.session):
        problems.append(f"expiring stream {stream.id} ended session {stream.session}")
    others = [s for s in t.observation.closed if s != stream.id]
    if others:
        problems.append(f"expiring stream {stream.id} also closed the connections of {_ids(others)}")
    return problems


TRANSITION_CHECKS: tuple[tuple[str, Callable[[Transition], list[str]]], ...] = (
    ("no-cross-session", no_cross_session),
    ("server-request-ownership", server_request_ownership),
    ("replay-suffix", replay_suffix),
    ("no-reemit-on-stream-resume", no_reemit_on_stream_resume),
    ("no-replay-on-session-resume", no_replay_on_session_resume),
    ("reemit-pending", reemit_pending),
    ("reemit-keeps-pending", reemit_keeps_pending),
    ("session-identity-stable", session_identity_stable),
    ("expiry-independent", expiry_independent),
    ("status", status_check),
)
"""Checks in the order their findings are reported; ``status`` findings are
filed under the rule that judges the outcome's branch."""

GENERIC_CHECKS: tuple[tuple[str, Callable[[Transition], list[str]]], ...] = (
    ("event-id-unique", event_id_resolves),
)
"""Checks whose findings are only reported when no specific check explains the step."""


def check_state(state: State) -> list[Finding]:
    """Every state invariant's violations in ``state``."""
    return [Finding(rule, m) for rule, check in STATE_INVARIANTS.items() for m in check(state)]


def check_transition(t: Transition, expected=None) -> list[Finding]:
    """Every violation on ``t``, filed under catalog rule ids.

    Specific checks first; the generic ones (an event id that resolves to
    nothing, and, when the spec's ``expected`` observation is given, any other
    difference from it, filed under ``agreement``) only when no specific check
    explains the step.
    """
    findings = []
    for rule, check in TRANSITION_CHECKS:
        for message in check(t):
            findings.append(Finding(_status_rule(t) if rule == "status" else rule, message))
    if findings:
        return findings
    for rule, check in GENERIC_CHECKS:
        findings += [Finding(rule, message) for message in check(t)]
    if not findings and expected is not None:
        findings += _disagreement(t, expected)
    return findings


def _disagreement(t: Transition, expected) -> list[Finding]:
    observed = t.observation
    if observed == expected:
        return []
    if t.outcome is not None and observed.status != expected.status and observed.status in t.outcome.statuses:
        return []  # an accepted alternative (a refusal): judged by status_check
    return [Finding(AGREEMENT, f"observed {observed}, the spec expects {expected}")]


# -- helpers ------------------------------------------------------------------------


def _succeeded(t: Transition, branch: Branch) -> bool:
    return t.outcome is not None and t.outcome.branch is branch and t.observation.status == 200


def _is_refusal(status: int | None) -> bool:
    return status is not None and status >= 300


def _status_rule(t: Transition) -> str:
    """The rule a wrong status breaks: the branch's, or ``expiry-independent`` when a
    live session whose stream expired is treated as gone."""
    session = getattr(t.action, "session", None)
    if t.observation.status == 404 and session is not None and t.before.session(session) is not None:
        live = t.before.session(session).status is SessionStatus.LIVE
        if live and any(s.status is StreamStatus.EXPIRED for s in t.before.streams_of(session)):
            return "expiry-independent"
    return t.outcome.rule


def _reemit_misses(t: Transition) -> list[tuple[str, str]]:
    if not _succeeded(t, Branch.SESSION_RESUMPTION):
        return []
    delivered = {d.request for d in t.observation.events if d.request is not None}
    misses = []
    for request_id in t.outcome.reemit:
        if request_id in delivered:
            continue
        request = t.before.request(request_id)
        reemitted_before = any(
            e.request == request_id and e.stream != request.stream for e in t.before.events
        )
        rule = "reemit-keeps-pending" if reemitted_before else "reemit-pending"
        why = "was re-emitted earlier and is still pending" if reemitted_before else "is pending"
        misses.append((rule, f"server request {request_id} {why} but was not re-emitted on the new stream of {t.action.session}"))
    return misses


def _suffix_defect(replayed, expected, t: Transition) -> str:
    if t.action.last_event_id in replayed:
        return " (includes the cursor's own event)"
    if len(replayed) < len(expected) and tuple(replayed) == tuple(expected[1:]):
        return " (skips the event right after the cursor)"
    if len(set(replayed)) < len(replayed):
        return " (duplicates)"
    if sorted(replayed) == sorted(expected):
        return " (reordered)"
    return ""


def _ids(items) -> str:
    return "[" + ", ".join(items) + "]"


def _describe_statuses(statuses: frozenset[int]) -> str:
    if len(statuses) > 20:
        missing = sorted(set(range(400, 500)) - statuses)
        extra = sorted(s for s in statuses if not 400 <= s < 500)
        text = "any 4xx"
        if missing:
            text += " except " + ", ".join(map(str, missing))
        if extra:
            text += " or " + ", ".join(map(str, extra))
        return text
    return " or ".join(map(str, sorted(statuses)))
