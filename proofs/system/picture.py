"""Reading a Z3 model back in the spec's own terms.

A model of a query is a finite structure: some session, stream, event and
request ids, and the relations between them in each time frame. ``Picture``
names the elements the way the spec does (``S1``, ``T1``, ``E1``, ``R1``:
issued ones first, events in the order they were sent; ids never issued show
as ``S?1`` ...), and ``render`` prints the frames side by side, with the action
and what the client observed: a counterexample to induction is a two-state
picture, a bounded run a sequence of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cmp_to_key

import z3

from mcp_resume.proofs.system.logic import EVENT, REQUEST, SESSION, SORTS, STREAM, FiniteLogic, Logic
from mcp_resume.proofs.system.vocabulary import ActionKind, Observation, Params, Rigid, State

LETTER = {SESSION: "S", STREAM: "T", EVENT: "E", REQUEST: "R"}


class ModelView:
    """Evaluation of terms in one model, with elements listed per sort."""

    def __init__(self, L: Logic, model: z3.ModelRef) -> None:
        self.L, self.model = L, model
        self.elements: dict[str, list] = {}
        for sort in SORTS:
            if isinstance(L, FiniteLogic):
                self.elements[sort] = list(L.elements[sort])
            else:
                universe = model.get_universe(L.sort(sort))
                self.elements[sort] = list(universe) if universe is not None else []

    def holds(self, term) -> bool:
        return z3.is_true(self.model.eval(term, model_completion=True))

    def value(self, term):
        return self.model.eval(term, model_completion=True)

    def integer(self, term) -> int:
        value = self.value(term)
        return value.as_long() if z3.is_int_value(value) else 0


@dataclass
class Picture:
    """Names for a model's elements, issued ones first (in any of ``frames``)."""

    view: ModelView
    R: Rigid
    frames: list[State]

    def __post_init__(self) -> None:
        v, R = self.view, self.R
        self.names: dict[str, str] = {}
        issued = {
            SESSION: lambda x: any(v.holds(f.s_issued(x)) for f in self.frames),
            STREAM: lambda x: any(v.holds(f.t_issued(x)) for f in self.frames),
            EVENT: lambda x: any(v.holds(f.e_issued(x)) for f in self.frames),
            REQUEST: lambda x: any(v.holds(f.r_issued(x)) for f in self.frames),
        }
        for sort in SORTS:
            elements = v.elements[sort]
            made = [x for x in elements if issued[sort](x)]
            if sort == EVENT:
                made.sort(key=cmp_to_key(lambda a, b: -1 if v.holds(R.lt(a, b)) else (1 if v.holds(R.lt(b, a)) else 0)))
            others = [x for x in elements if x not in made]
            for i, x in enumerate(made, start=1):
                self.names[str(x)] = f"{LETTER[sort]}{i}"
            for i, x in enumerate(others, start=1):
                self.names[str(x)] = f"{LETTER[sort]}?{i}"
        self.issued_order = {s: [x for x in v.elements[s] if not self.name(x).startswith(LETTER[s] + "?")] for s in SORTS}
        for s in SORTS:
            self.issued_order[s].sort(key=lambda x: int(self.name(x)[1:]))

    def name(self, element) -> str:
        return self.names.get(str(self.view.value(element)), str(element))

    # -- one frame, as lines keyed by entity ------------------------------------------

    def describe(self, X: State) -> dict[str, str]:
        v, R = self.view, self.R
        rows: dict[str, str] = {}
        for s in self.issued_order[SESSION]:
            if v.holds(X.s_issued(s)):
                rows[f"session {self.name(s)}"] = "live" if v.holds(X.s_live(s)) else "ended"
        for t in self.issued_order[STREAM]:
            if v.holds(X.t_issued(t)):
                status = "open" if v.holds(X.t_open(t)) else ("expired" if v.holds(X.t_expired(t)) else "ended")
                kind = "get" if v.holds(R.t_get(t)) else "post"
                connected = ", connected" if v.holds(X.t_connected(t)) else ""
                rows[f"stream {self.name(t)}"] = f"of {self.name(R.owner(t))}, {kind}, {status}{connected}"
        for e in self.issued_order[EVENT]:
            if v.holds(X.e_issued(e)):
                carried = [self.name(r) for r in v.elements[REQUEST] if v.holds(R.carries(e, r))]
                rows[f"event {self.name(e)}"] = f"on {self.name(R.stream_of(e))}" + (f", carries {carried[0]}" if carried else "")
        for r in self.issued_order[REQUEST]:
            if v.holds(X.r_issued(r)):
                status = "pending" if v.holds(X.r_pending(r)) else "resolved"
                rows[f"request {self.name(r)}"] = f"of {self.name(R.r_session(r))}, first on {self.name(R.r_stream(r))}, {status}"
        if X.cursor is not None:
            for s in v.elements[SESSION]:
                cursors = [f"{self.name(t)}@{self.name(e)}" for t in self.issued_order[STREAM] for e in v.elements[EVENT] if v.holds(X.cursor(s, t, e))]
                held = [self.name(r) for r in v.elements[REQUEST] if v.holds(X.seen(s, r))]
                if cursors or held:
                    rows[f"client {self.name(s)}"] = "; ".join(filter(None, [" ".join(cursors), "holds " + " ".join(held) if held else ""]))
        return rows

    def action(self, A: Params) -> str:
        """The action in ``spec.actions.describe`` style."""
        v = self.view
        kind = v.L.decode_enum(v.value(A.kind), ActionKind)
        session = self._header(A.sh_present, A.sh_malformed, A.sh, SESSION)
        event = self._header(A.eh_present, A.eh_malformed, A.eh, EVENT)
        fields = {
            ActionKind.INITIALIZE: {},
            ActionKind.CALL_TOOL: {"session": session},
            ActionKind.RECONNECT: {"session": session, "last_event_id": event},
            ActionKind.ANSWER_REQUEST: {"session": session, "request": self.name(A.target_request)},
            ActionKind.DELETE_SESSION: {"session": session},
            ActionKind.RESTART_CLIENT: {},
            ActionKind.CANCEL_REQUEST: {"request": self.name(A.target_request)},
            ActionKind.EXPIRE_SESSION: {"session": self.name(A.target_session)},
        }.get(kind, {"stream": self.name(A.target_stream)})
        return f"{kind.value}(" + ", ".join(f"{k}={val}" for k, val in fields.items()) + ")"

    def observed(self, O: Observation) -> str:
        v = self.view
        delivered = [self.name(e) for e in self.issued_order[EVENT] + [x for x in v.elements[EVENT] if x not in self.issued_order[EVENT]] if v.holds(O.delivered(e))]
        closed = [self.name(t) for t in v.elements[STREAM] if v.holds(O.closed(t))]
        status = v.integer(O.status)
        parts = [f"status {status}" if status else "no status (server or network action)"]
        parts.append("delivered " + (" ".join(delivered) if delivered else "nothing"))
        if closed:
            parts.append("closed " + " ".join(closed))
        return ", ".join(parts)

    def _header(self, present, malformed, element, sort) -> str:
        v = self.view
        if not v.holds(present):
            return "-"
        if v.holds(malformed):
            return "<malformed>"
        return self.name(element)


def render_step(picture: Picture, before: State, A: Params, O: Observation, after: State, title: str) -> str:
    """Two frames side by side with the action between them."""
    left, right = picture.describe(before), picture.describe(after)
    keys = list(dict.fromkeys(list(left) + list(right)))
    width = max([len(k) for k in keys] + [6])
    column = max([len(left.get(k, "")) for k in keys] + [6])
    lines = [title, f"  action: {picture.action(A)}", f"  observed: {picture.observed(O)}",
             f"  {'':<{width}}  {'before':<{column}}  after"]
    for key in keys:
        lines.append(f"  {key:<{width}}  {left.get(key, '-'):<{column}}  {right.get(key, '-')}")
    return "\n".join(lines)
