"""The EventStore kit's report: a leak it observed fails the store (also deployed shared), the
finding leads in one line, the SDK background comes once, messages show as JSON, no file paths."""

from tests.helpers import event_stores as stores
from mcp_resume.testing import PER_SESSION, check_event_store


def test_per_session_limits_do_not_fail_a_correct_store():
    report = check_event_store(stores.MemoryEventStore, examples=3, deployment=PER_SESSION)
    assert report.passed and report.leaks == () and "FAIL" not in report.explain().splitlines()[0]
