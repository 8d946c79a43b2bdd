"""What each framework's source does behind each verdict of the compatibility page that is not PASS.

``NOTES`` maps a framework target (``model.targets.frameworks``) to its notes;
a ``Note`` covers the rules it names, says what the framework does and why,
and names the file of the pinned package where it does it. A note with
``verify_mistake`` explains a verdict that is verify's own error, not the
framework's fault. ``note_for(target, rule)`` is the note covering ``rule``, or None.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Note:
    rules: tuple[str, ...]
    text: str
    source: str
    verify_mistake: bool = False


NOTES: dict[str, tuple[Note, ...]] = {}


def note_for(target: str, rule: str) -> Note | None:
    """The note of ``target`` that covers ``rule``, or None."""
    return next((n for n in NOTES.get(target, ()) if rule in n.rules), None)
