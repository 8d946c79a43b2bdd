"""The one judge of what a client saw: records of exchanges -> the spec's verdict per rule.

``verify`` (its scenarios' own traffic), ``validate`` (a recording) and the proxy
(live traffic) all call ``judge``. It picks the mapping by the revision each exchange
speaks: the session era's (``validate``: the spec's state machine and its server
checks) or 2026-07-28's (``sessionless``: that revision's machine and checks). With
``profile=None`` (``--profile auto``) the revision is read from the traffic: the
``protocolVersion`` an ``initialize`` answer negotiated, or the 2026-07-28 request
shape (its ``MCP-Protocol-Version`` header or ``_meta``, F12). An endpoint that
serves both eras is judged exchange by exchange: each rule's verdict comes from the
era whose profile applies it.
"""

from __future__ import annotations

from mcp_resume.spec.catalog import level
from mcp_resume.spec.profiles import MCP_SESSION_REVISIONS, PROFILE_OF_REVISION, Level, Profile

from mcp_resume.model.traffic.records import Record
from mcp_resume.model.sessionless.traffic import is_sessionless, validate_sessionless
from mcp_resume.model.traffic.trace_validation import Validation, negotiated_versions, validate

FALLBACK = Profile.MCP_2025_11_25
"""The profile of session-era traffic whose revision the log does not show."""


def judge(records: list[Record], profile: Profile | None = None, *, complete: bool = False,
          session_ttl: float | None = None, lean: bool = False, bounded_waits: bool = False) -> Validation:
    """The spec's judgement of ``records`` under ``profile`` (``None``: read from the traffic).

    ``complete``: the records hold every session their client used (``verify``), so an
    unseen session id names no session; ``session_ttl``: the seconds a session lives idle,
    as the server states it (``verify --session-ttl``); ``lean``: steps keep no observations
    (``trace_validation.validate``'s ``lean``: the same verdicts and report, less memory);
    ``bounded_waits``: the client bounded its own waits (``verify``), so a GET left without a
    response head within its bound is judged as unanswered (``trace_validation.validate``). Never raises
    for what a server did.
    """
    sessionless = [r for r in records if is_sessionless(r)]
    session_era = [r for r in records if not is_sessionless(r)]
    if profile is Profile.MCP_2026_07_28 or profile is None and sessionless and not session_era:
        return validate_sessionless(records)
    era_profile = profile or negotiated_profile(records) or FALLBACK
    judged = validate(session_era, era_profile, complete=complete, session_ttl=session_ttl, lean=lean,
                      bounded_waits=bounded_waits)
    if profile is not None or not sessionless:
        return judged
    return _merged(judged, validate_sessionless(sessionless))


def profile_of(records: list[Record], profile: Profile | None = None) -> Profile:
    """The profile of ``judge(records, profile)``'s judgement, told without judging: ``profile`` when
    given, else 2026-07-28 for traffic all in that revision's shape, else the negotiated revision
    (``negotiated_profile``), else ``FALLBACK``."""
    if profile is not None:
        return profile
    shapes = {is_sessionless(r) for r in records}
    if shapes == {True}:
        return Profile.MCP_2026_07_28
    return negotiated_profile(records) or FALLBACK


def beside_profile(profile: Profile, negotiated: Profile | None) -> Profile | None:
    """The profile whose verdicts a report shows beside ``profile``'s: ``boundary`` beside an MCP
    revision of the session era, the negotiated revision beside ``boundary``; none for 2026-07-28."""
    if profile is Profile.BOUNDARY:
        return negotiated if negotiated in MCP_SESSION_REVISIONS else None
    return Profile.BOUNDARY if profile in MCP_SESSION_REVISIONS else None


def judge_beside(records: list[Record], judged: Validation, *, complete: bool = False,
                 session_ttl: float | None = None) -> Validation | None:
    """The same ``records`` judged under the profile shown beside ``judged``'s (``beside_profile``),
    or ``None`` when there is none (2026-07-28 traffic)."""
    other = beside_profile(judged.profile, negotiated_profile(records))
    return judge(records, other, complete=complete, session_ttl=session_ttl) if other is not None else None


def negotiated_profile(records: list[Record]) -> Profile | None:
    """The profile of the revision the first answered ``initialize`` negotiated, if the log has one."""
    return next((PROFILE_OF_REVISION[v] for v in negotiated_versions(records) if v in PROFILE_OF_REVISION), None)


def _merged(session_era: Validation, sessionless: Validation) -> Validation:
    """One judgement of an endpoint serving both eras: each rule from the era that applies it."""
    by_rule = {r.rule: r for r in sessionless.results}
    results = [by_rule[r.rule] if level(r.rule, session_era.profile) is Level.NOT_APPLICABLE else r
               for r in session_era.results]
    return Validation(session_era.profile, results, session_era.steps + sessionless.steps,
                      session_era.open + sessionless.open, session_era.assumed + sessionless.assumed,
                      session_era.notes + sessionless.notes)
