"""Why a step of a saved trace cannot be played, and which earlier step broke it.

A trace written by ``check``, ``explore`` or the machine only names handles an
earlier step minted, and every server action in it is enabled where it stands.
A hand-edited trace breaks that: the edited step itself usually still plays
(client requests are always enabled), and the first step that cannot is a later
one. ``not_enabled_error`` names both: the step that cannot be played and the
step that made it so (``blame``).
"""

from __future__ import annotations

from dataclasses import asdict

from mcp_resume.spec.actions import Action, describe
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.state import INITIAL_STATE, State
from mcp_resume.spec.transitions import NotModelled, enabled, step

_LOOKUPS = {"session": "session", "stream": "stream", "request": "request", "last_event_id": "event"}
_NOUNS = {"session": "session", "stream": "stream", "request": "server request", "last_event_id": "event"}


class TraceStepError(ValueError):
    """Step ``step`` of a trace cannot be played; ``blamed`` is the step that made it so (or ``step``)."""

    def __init__(self, message: str, step: int, blamed: int) -> None:
        super().__init__(message)
        self.step, self.blamed = step, blamed


def not_enabled_error(actions: tuple[Action, ...], number: int, profile: Profile) -> TraceStepError:
    """The error for step ``number`` (1-based) not enabled in the spec's state."""
    action = actions[number - 1]
    blamed, why = blame(actions[: number - 1], action, profile)
    cannot = f"trace step {number} ({describe(action)}) cannot be played: it is not enabled in the spec's state"
    if blamed is None:
        return TraceStepError(cannot, number, number)
    return TraceStepError(f"trace step {blamed} ({describe(actions[blamed - 1])}) {why}, so {cannot}. "
                          f"Was step {blamed} edited?", number, blamed)


def blame(earlier: tuple[Action, ...], action: Action, profile: Profile) -> tuple[int | None, str]:
    """(the 1-based step of ``earlier`` after which ``action`` could not run, why), or (None, "")."""
    state, ended, foreign = INITIAL_STATE, None, None
    try:
        for number, previous in enumerate(earlier, start=1):
            unminted = _unminted(state, previous)
            if foreign is None and unminted:
                foreign = (number, f"names {unminted}, which no step before it created, and so creates nothing "
                                   "the later step can use")
            after = step(state, previous, profile).after
            if enabled(state, action) and not enabled(after, action):
                ended = (number, "ended what the later step needs")
            state = after
    except (ValueError, NotModelled):
        return None, ""
    return ended or foreign or (None, "")


def _unminted(state: State, action: Action) -> str:
    """``"session S4"`` when ``action`` names a handle ``state`` never minted, else ``""``."""
    for name, value in asdict(action).items():
        lookup = _LOOKUPS.get(name)
        if lookup is not None and isinstance(value, str) and getattr(state, lookup)(value) is None:
            return f"{_NOUNS[name]} {value}"
    return ""
