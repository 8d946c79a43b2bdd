"""The reference transitions: what each action does, and what the client sees."""

from mcp_resume.spec import actions as a
from mcp_resume.model.explore.plain import explore_spec
from mcp_resume.spec.invariants import check_spec_step
from mcp_resume.spec.space import Bounds, candidate_actions
from mcp_resume.spec.state import ClientSession, State
from mcp_resume.spec.transitions import remember, step_if_enabled


def _client_memories(state):
    """``state`` with the client's memory changed in every way a state can hold it: every
    session forgotten, every session held with nothing received, and each held session's
    cursors and requests dropped one at a time."""
    memories = [State(state.sessions, state.streams, state.events, state.requests, ())]
    memories.append(State(state.sessions, state.streams, state.events, state.requests,
                          tuple(ClientSession(s.id) for s in state.sessions)))
    for index, entry in enumerate(state.client):
        for changed in (ClientSession(entry.session, entry.cursors[1:], entry.seen),
                        ClientSession(entry.session, entry.cursors, entry.seen[1:])):
            client = state.client[:index] + (changed,) + state.client[index + 1:]
            memories.append(State(state.sessions, state.streams, state.events, state.requests, client))
    return [memory for memory in memories if memory != state]


def _server_side(state):
    return state.sessions, state.streams, state.events, state.requests


def test_the_server_side_of_a_step_does_not_read_the_clients_memory():
    """What the fast explorer's reuse of a server's side across client memories rests on
    (``explore.fast.SessionTable._server_steps``): with any other client memory, a step has
    the same outcome, observation, server's side after and check findings, and its client
    memory is ``remember``'s."""
    states: dict = {}
    explore_spec(Bounds(sessions=2, streams=2, events=2, requests=1, depth=5),
                 record=lambda source, t, target: states.setdefault(target, t.after))
    compared = 0
    for state in states.values():
        for other in _client_memories(state):
            for action in candidate_actions(state):
                if isinstance(action, (a.Initialize, a.RestartClient)):
                    continue  # the two actions that are about the client's memory itself
                mine, theirs = step_if_enabled(state, action), step_if_enabled(other, action)
                if mine is None:
                    assert theirs is None
                    continue
                assert (theirs.outcome, theirs.observation) == (mine.outcome, mine.observation), (state, action)
                assert _server_side(theirs.after) == _server_side(mine.after)
                assert check_spec_step(theirs) == check_spec_step(mine)
                server_side = State(*_server_side(mine.after), other.client)
                assert remember(other, server_side, mine.observation) == theirs.after
                compared += 1
    assert compared > 10_000
