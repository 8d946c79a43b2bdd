"""The state-space manifest: for each named bound, what exploring the spec must find.

``state_space.json`` (next to this module) lists, per named bound of
``spec.space.NAMED_BOUNDS`` and profile, the distinct states, transitions,
pruned transitions, depth, states per level, transitions per action kind and
per decision branch, and the result (``holds``, or the rules broken). CI
explores the bounds marked ``ci`` again and fails when any number differs, so
a change to the spec that alters its state space is never silent: either it
was meant, and the manifest is regenerated in the same commit
(``python -m mcp_resume.model.explore.state_space --write``), or it is a bug.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from mcp_resume.spec.profiles import Profile

from mcp_resume.model.explore.fast import explore_fast
from mcp_resume.model.explore.result import ExplorationResult
from mcp_resume.spec.space import NAMED_BOUNDS

MANIFEST_PATH = Path(__file__).with_name("state_space.json")
MANIFEST_FORMAT = "mcp-resume-state-space/1"

CI_BOUNDS = ("tiny", "small", "graph", "kill", "default")
"""Bounds the slow test tier explores again (``default`` takes about a minute; the others
seconds); ``mcp-resume check`` reruns ``kill``."""

MANIFEST_ENTRIES: tuple[tuple[str, Profile], ...] = (
    ("tiny", Profile.BOUNDARY),
    ("small", Profile.BOUNDARY),
    ("graph", Profile.BOUNDARY),
    ("kill", Profile.BOUNDARY),
    ("kill", Profile.MCP_2025_11_25),
    ("default", Profile.BOUNDARY),
)


def entry(name: str, result: ExplorationResult) -> dict:
    """The manifest entry of one exploration of the named bound ``name``."""
    coverage = result.coverage.to_json()
    return {
        "bound": name,
        "profile": result.profile.value,
        "bounds": result.bounds.to_json(),
        "ci": name in CI_BOUNDS,
        "states": result.states,
        "transitions": result.transitions,
        "pruned": result.pruned,
        "depth": result.depth,
        "levels": result.levels,
        "actions": coverage["actions"],
        "branches": coverage["branches"],
        "result": "holds" if result.holds else sorted(result.violations) or "vacuous",
    }


def load_manifest(path: Path = MANIFEST_PATH) -> list[dict]:
    """The manifest's entries; ``ValueError`` when the file is not a manifest."""
    data = json.loads(Path(path).read_text())
    if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
        raise ValueError(f"{path} is not a state-space manifest ({MANIFEST_FORMAT})")
    return data["entries"]


def expected(name: str, profile: Profile, path: Path = MANIFEST_PATH) -> dict | None:
    """The manifest entry for bound ``name`` under ``profile``, if there is one."""
    for item in load_manifest(path):
        if item["bound"] == name and item["profile"] == profile.value:
            return item
    return None


def differences(name: str, result: ExplorationResult, path: Path = MANIFEST_PATH) -> list[str]:
    """How ``result`` differs from the manifest's entry for ``name`` (empty: it matches).

    A missing entry, or bounds that are not the named bound's, is a difference too.
    """
    recorded = expected(name, result.profile, path)
    if recorded is None:
        return [f"the manifest has no entry for bound {name!r} under {result.profile.value}"]
    found = entry(name, result)
    return [
        f"{key}: manifest {recorded.get(key)!r}, explored {found[key]!r}"
        for key in found
        if key != "ci" and recorded.get(key) != found[key]
    ]


def explore_named(name: str, profile: Profile = Profile.BOUNDARY, progress=None) -> ExplorationResult:
    """Explore the spec within the named bound ``name`` with the fast explorer."""
    return explore_fast(NAMED_BOUNDS[name], profile, progress)


def build_manifest() -> dict:
    """Explore every manifest entry afresh."""
    entries = []
    for name, profile in MANIFEST_ENTRIES:
        result = explore_named(name, profile)
        entries.append(entry(name, result))
        print(f"{name} {profile.value}: {result.states} states, {result.transitions} transitions, "
              f"{result.seconds:.1f} s", file=sys.stderr)
    return {"format": MANIFEST_FORMAT, "engine": "explore_fast", "entries": entries}


def _dumps(data: dict) -> str:
    """JSON with each list of numbers on one line, so a diff shows which count changed."""
    text = json.dumps(data, indent=2)
    return re.sub(r"\[([0-9,\s]+)\]", lambda m: "[" + ", ".join(m.group(1).split()).replace(",,", ",") + "]", text) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check or regenerate the state-space manifest.")
    parser.add_argument("--write", action="store_true", help="explore every entry and rewrite state_space.json")
    args = parser.parse_args(argv)
    if args.write:
        MANIFEST_PATH.write_text(_dumps(build_manifest()))
        print(f"wrote {MANIFEST_PATH}")
        return 0
    problems = []
    for name, profile in MANIFEST_ENTRIES:
        problems += [f"{name}/{profile.value}: {d}" for d in differences(name, explore_named(name, profile))]
    print("\n".join(problems) or "the spec's state space matches the manifest")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

