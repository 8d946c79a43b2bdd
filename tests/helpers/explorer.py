"""What tests/fast/test_explorer.py and tests/slow/test_explorer.py share."""

from mcp_resume.model.explore import fast
from mcp_resume.model.explore.fast import SessionTable
from mcp_resume.spec.profiles import Profile


def counts(result):
    return (result.states, result.transitions, result.pruned, result.depth, result.levels,
            dict(result.coverage.actions), dict(result.coverage.branches))


def expanded_forms(bounds, monkeypatch=None):
    table = SessionTable(bounds, Profile.BOUNDARY)
    fast.expand_forms(table, fast._global_actions(table).fresh, bounds)
    expansions = [None if e is None else (e.moves, e.counts, e.pruned, e.findings, e.forget, e.forget_findings)
                  for e in table.expansions]
    return table, expansions
