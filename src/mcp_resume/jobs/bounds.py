"""The bound a command explores: a named one (``--bound``), explicit numbers over it, or the
command's own default (``spec.space.NAMED_BOUNDS``; ``liveness`` is the ``liveness`` command's own)."""

from __future__ import annotations

from mcp_resume.spec.space import NAMED_BOUNDS, Bounds, named_bound

EXPLICIT = ("sessions", "streams", "events", "requests", "depth")
"""The numbers a command line may give (``--sessions N`` ...), each overriding that field of the bound."""


class UsageError(ValueError):
    """Bad command-line input; the message says what and what to do, on one line."""


def resolve_bounds(args, default: str, liveness: bool = False) -> tuple[str | None, Bounds]:
    """The bound to explore and its name (``None`` for explicit numbers that change it).

    ``args.bound`` names one, else ``default``; the explicit numbers of ``args`` (``EXPLICIT``,
    ``None`` when not given) override its fields. ``liveness``: the ``liveness`` bound is among the
    names (the ``liveness`` command's own). ``UsageError`` for an unknown name, or a session count
    or depth below 1.
    """
    explicit = {name: getattr(args, name) for name in EXPLICIT if getattr(args, name, None) is not None}
    for name in ("sessions", "depth"):
        if explicit.get(name, 1) < 1:
            raise UsageError(f"--{name} must be at least 1, got {explicit[name]} (0 explores nothing beyond the initial state)")
    name = args.bound or default
    base = _named_bound(name, liveness)
    if not explicit:
        return name, base
    values = {field: getattr(base, field) for field in EXPLICIT}
    values.update(explicit)
    bounds = Bounds(**values)
    return (name if bounds == base else None), bounds


def bound_given(args) -> bool:
    """Whether the command line names a bound (``--bound`` or any explicit number)."""
    return bool(args.bound) or any(getattr(args, name, None) is not None for name in EXPLICIT)


def _named_bound(name: str, liveness: bool) -> Bounds:
    """The bound called ``name``; the ``liveness`` bound among them when ``liveness``."""
    try:
        return named_bound(name)
    except ValueError as error:
        unknown = str(error)
    from mcp_resume.model.explore.liveness_check import DESIGN_BOUND_NAME, DESIGN_BOUNDS

    if name != DESIGN_BOUND_NAME:
        raise UsageError(unknown + (f", and {DESIGN_BOUND_NAME}" if liveness else ""))
    if not liveness:
        raise UsageError(f"the {DESIGN_BOUND_NAME} bound ({DESIGN_BOUNDS.describe()}) is the liveness command's own "
                         f"(mcp-resume liveness); give another bound: {', '.join(NAMED_BOUNDS)}")
    return DESIGN_BOUNDS
