"""The pytest plugin of the test kit, registered under the ``pytest11`` entry point.

Fixture ``event_store_check``: a function with ``check_event_store``'s signature
whose ``examples`` default to ``--mcp-resume-examples`` when given. Nothing
heavy is imported until a test uses the fixture.
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser) -> None:
    group = parser.getgroup("mcp-resume", "mcp-resume EventStore test kit")
    group.addoption(
        "--mcp-resume-examples",
        type=int,
        default=None,
        metavar="N",
        help="Hypothesis examples per event_store_check (default: the kit's, 150)",
    )


@pytest.fixture
def event_store_check(request):
    """``check(factory, **options) -> EventStoreReport``; see ``mcp_resume.testing.check_event_store``."""
    from mcp_resume.testing.kit import check_event_store

    examples = request.config.getoption("--mcp-resume-examples")

    def check(factory, **options):
        if examples is not None:
            options.setdefault("examples", examples)
        return check_event_store(factory, **options)

    return check
