"""The explorers: breadth-first walks of the spec, or of a server beside it, within bounds.

Three functions are the interface of a walk:

- ``fast.explore_fast(bounds, ...)``: the spec's state space, exhausted (the fast engine);
- ``plain.explore_spec(bounds, ...)``: the same walk over concrete states, the reference
  the fast engine is checked against;
- ``server.explore_server(factory, bounds, profile, ...)``: a server (a faulty design, the
  reference server) explored beside the spec to its shortest counterexamples.

The fast engine's internals (``forms``, ``search``) and ``forked`` (the design
explorer's levels on workers) are not for use from outside this package; each says in
its ``__all__`` whom it serves. ``canonical`` and ``fingerprint`` (the symmetry reduction)
and ``estimate`` (a bound's size, before a run) serve the explorers and their commands. The kill matrix
(``kill_matrix``), the liveness check (``liveness``) and the state graph
(``state_graph``, ``graph_edges``, ``graph_parts``) build on the three. Worker processes
come from ``model.harness.workers`` only.
"""
