"""The one oracle of what a client saw: records of either era -> the spec's verdicts.

``judge`` picks each exchange's mapping (the session era's validator in
``model.traffic`` or the 2026-07-28 one in ``model.sessionless``) and returns one
verdict per rule; ``verify``, ``validate`` and the proxy all call it. ``live`` is
the proxy's checker, the same judge run again as records arrive.
"""
