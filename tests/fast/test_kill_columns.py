"""The z3-bmc and http-verify columns of the kill matrix run their real checkers."""

from mcp_resume.jobs.kill_columns import kill_columns


def test_every_column_is_wired_to_a_checker():
    assert [c.name for c in kill_columns(5)] == ["hypothesis", "explorer", "z3-bmc", "http-verify"]
    assert all(c.unavailable() is None for c in kill_columns(5))
