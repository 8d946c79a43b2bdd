"""What tests/fast/test_sessionless_machine.py and tests/slow/test_sessionless_machine.py share."""

from __future__ import annotations

from mcp_resume.spec.sessionless import machine as s


def run(*actions) -> s.SessionlessState:
    state = s.INITIAL
    for action in actions:
        state = s.step(state, action).after
    return state
