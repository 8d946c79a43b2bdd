"""Adapters for servers that run in this process: the spec itself and server objects."""

from __future__ import annotations

from mcp_resume.spec.actions import Action
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile
from mcp_resume.spec.state import INITIAL_STATE
from mcp_resume.spec.transitions import Observation, step


class SpecAdapter:
    """The spec as a server under test: its ids are the spec's own handles.

    Checking the spec against itself exercises every state invariant on every
    state the machine reaches.
    """

    name = "spec"

    def __init__(self, profile: Profile = DEFAULT_PROFILE) -> None:
        self.profile = profile
        self.state = INITIAL_STATE

    def apply(self, action: Action) -> Observation:
        transition = step(self.state, action, self.profile)
        self.state = transition.after
        return transition.observation

    def close(self) -> None:
        pass


def server_factory(name: str):
    """A zero-argument factory of the in-process server called ``name``.

    ``name`` is ``spec``, ``reference``, ``design-<n>`` (a design of ``spec.designs``)
    or ``variation-<slug>`` (a correct variation of ``spec.designs``).
    Raises ``ValueError`` naming the known servers otherwise.
    """
    from mcp_resume.spec import designs
    from mcp_resume.model.servers.faulty import DESIGNS
    from mcp_resume.model.servers.reference import ReferenceServer
    from mcp_resume.model.servers.variations import VARIATIONS

    if name == "spec":
        return SpecAdapter
    if name == "reference":
        return ReferenceServer
    number = designs.target_number(name)
    if number is not None:
        return DESIGNS[number]
    if name in VARIATIONS:
        return VARIATIONS[name]
    known = ", ".join(["spec", "reference"] + [d.target for d in designs.DESIGNS + designs.VARIATIONS])
    raise ValueError(f"unknown in-process server {name!r}; known: {known}")
