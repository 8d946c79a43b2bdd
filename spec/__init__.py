"""The executable specification of stream vs session resumption (docs/design.md §2-§4).

Pure and deterministic, standard library only, no I/O. Modules:

- ``state``: sessions, streams, events, server requests, the client's view;
- ``actions``: what clients, the network and servers do;
- ``headers``: classes of the two reconnect headers, and the values that name nothing;
- ``decision``: the decision table and its refinement against a state;
- ``transitions``: the reference transition relation;
- ``invariants``: the predicates every checker shares;
- ``profiles`` and ``catalog``: the levels of every rule per profile;
- ``trace``: replayable sequences of actions;
- ``designs``: the faulty designs of docs/design.md §5, as data (their rules and deviations);
- ``space``: what every explorer shares: the bounds of a run, the actions worth
  trying in a state;
- ``verdicts``: PASS/FAIL/WARN/SKIP/INCONCLUSIVE per rule and profile;
- ``walk``: a breadth-first walk with the path back to each node found: not part of
  the specification, a search utility the explorers of ``model/`` and ``proofs/``
  share (neither imports the other);
- ``sessionless/``: the 2026-07-28 revision's own state machine (``machine``: no
  session, POST only) and the checks of what its servers send (``checks``).
"""

from .actions import ACTION_TYPES, Action, action_from_json, action_to_json, describe
from .catalog import AGREEMENT, RULES, RULES_BY_ID, Rule, level
from .decision import Branch, HttpRequest, Method, Outcome, decide, decide_class
from .headers import EventClass, SessionClass
from .invariants import Finding, check_state, check_transition
from .profiles import DEFAULT_PROFILE, Level, Profile
from .state import INITIAL_STATE, State
from .trace import Failure, Trace, loads, trace_from_json
from .verdicts import Verdict, verdict_for_broken, worst
from .transitions import Delivered, NotModelled, Observation, Transition, alternatives, enabled, step

__all__ = [
    "ACTION_TYPES", "AGREEMENT", "Action", "Branch", "DEFAULT_PROFILE", "Delivered", "EventClass",
    "Failure", "Finding", "HttpRequest", "INITIAL_STATE", "Level", "Method", "NotModelled",
    "Observation", "Outcome", "Profile", "RULES", "RULES_BY_ID", "Rule", "SessionClass", "State",
    "Trace", "Transition", "action_from_json", "action_to_json", "alternatives", "check_state",
    "check_transition", "decide", "decide_class", "describe", "enabled", "level", "loads", "step",
    "trace_from_json", "Verdict", "verdict_for_broken", "worst",
]
