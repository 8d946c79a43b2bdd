"""Steps of the spec for the spec's own tests: a state reached by actions, and a step whose
server observation is changed, so a check can be shown to fail on one wrong observation."""

from dataclasses import replace

from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.state import INITIAL_STATE, State
from mcp_resume.spec.transitions import Transition, step


def run(*actions, state: State = INITIAL_STATE) -> State:
    """The state after the reference takes ``actions`` from ``state``, under ``boundary``."""
    for action in actions:
        state = step(state, action).after
    return state


def seen(state: State, action, profile: Profile = Profile.BOUNDARY, **wrong) -> Transition:
    """The reference's transition with the server's observation changed by ``wrong``."""
    t = step(state, action, profile)
    return replace(t, observation=replace(t.observation, **wrong))
