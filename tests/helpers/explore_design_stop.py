"""What tests/fast/test_explore_design_stop.py and tests/slow/test_explore_design_stop.py share."""




def steps_by_rule(result):
    return {rule: violation.steps for rule, violation in result.violations.items()}


def same_walk(result):
    """What a walk found, as a value: counts, levels, coverage, and every trace kept."""
    traces = {rule: v.trace.actions for rule, v in {**result.violations, **result.warnings}.items()}
    return (result.states, result.transitions, result.pruned, result.levels, result.depth, result.exhausted,
            result.notes["expanded"], dict(result.coverage.actions), dict(result.coverage.branches), traces)
