"""What tests/fast/test_explore_budget.py and tests/slow/test_explore_budget.py share."""

from mcp_resume.model.explore import fast


def expanded_table(bounds, workers):
    table = fast.SessionTable(bounds, fast.DEFAULT_PROFILE)
    world = fast._global_actions(table)
    return fast.expand_forms(table, world.fresh, bounds, workers=workers), table
