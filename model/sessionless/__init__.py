"""The 2026-07-28 revision beside ``spec/sessionless/``: one home in the model layer.

``server`` is an in-process server of the revision and its faulty ports,
``checker`` drives a server and the machine side by side, ``explore`` walks the
machine within bounds (alone or beside a server), ``traffic`` judges recorded
exchanges of the revision; ``dual_era_server`` and ``dual_era_checker`` are an
endpoint that serves both eras and the checker of it.
"""
