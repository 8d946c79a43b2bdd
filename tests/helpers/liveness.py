"""What tests/fast/test_liveness.py and tests/slow/test_liveness.py share."""

import pytest

from mcp_resume.cli import build_parser
from mcp_resume.model.explore import liveness
from mcp_resume.model.explore.liveness import DESIGN_BOUNDS, check, design_graph
from mcp_resume.model.servers.faulty import DESIGNS


@pytest.fixture(scope="module")
def lassos():
    return {n: check(design_graph(DESIGNS[n], DESIGN_BOUNDS)).lassos for n in (1, 3)}


def run_liveness(*argv):
    args = build_parser().parse_args(["liveness", *argv])
    return args.handler(args)
