"""What tests/fast/test_liveness.py and tests/slow/test_liveness.py share."""

import pytest

from mcp_resume.cli import build_parser
from mcp_resume.model.explore.liveness_check import DESIGN_BOUNDS, check, design_graph
from mcp_resume.model.servers.faulty import DESIGNS


@pytest.fixture(scope="session")
def lassos(shared_runs):
    """``{design: lassos}`` of designs 1 and 3 within ``DESIGN_BOUNDS``, found once for the
    session (about 5 s each) and shared by every worker."""
    def found(number: int):
        return shared_runs.get(f"liveness-lassos-{number}", lambda: check(design_graph(DESIGNS[number], DESIGN_BOUNDS)).lassos)

    return {number: found(number) for number in (1, 3)}


def run_liveness(*argv):
    args = build_parser().parse_args(["liveness", *argv])
    return args.handler(args)
