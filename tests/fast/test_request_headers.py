"""``--header NAME:VALUE`` and ``MCP_RESUME_HEADERS`` (issue 40): read, checked, and never echoed."""

from __future__ import annotations

import pytest

from mcp_resume.cli import main
from mcp_resume.jobs.request_headers import ENVIRONMENT_VARIABLE, request_headers
from mcp_resume.jobs.targets import UsageError


def test_headers_come_from_the_environment_then_the_options_a_later_name_winning():
    environ = {ENVIRONMENT_VARIABLE: "Authorization: Bearer from-env\n\nX-Tenant: a\n"}
    assert request_headers(["x-tenant: b", "X-Trace:1"], environ) == (
        ("Authorization", "Bearer from-env"), ("x-tenant", "b"), ("X-Trace", "1"))
    assert request_headers(None, {}) == ()


@pytest.mark.parametrize("text, words", [
    ("Authorization Bearer hunter2", "expected NAME:VALUE"),
    ("Bad Name: hunter2", "expected NAME:VALUE"),
    ("Mcp-Session-Id: hunter2", "set by mcp-resume itself"),
    ("Last-Event-ID: hunter2", "set by mcp-resume itself"),
])
def test_a_bad_header_is_a_usage_error_that_never_shows_its_value(text, words):
    with pytest.raises(UsageError, match=words) as refused:
        request_headers([text], {})
    assert "hunter2" not in str(refused.value)


def test_verify_refuses_a_bad_header_before_any_server_starts(capsys):
    assert main(["verify", "design-3", "--header", "Accept: hunter2"]) == 2
    err = capsys.readouterr().err
    assert "mcp-resume verify: error: --header: Accept is set by mcp-resume itself" in err and "hunter2" not in err


def test_a_header_name_typed_without_its_colon_is_never_echoed():
    with pytest.raises(UsageError) as refused:
        request_headers(["Authorization Bearer tok3n:abc"], {})
    assert "tok3n" not in str(refused.value) and "no HTTP header name" in str(refused.value)


@pytest.mark.parametrize("text", ["X-A: \u00e9-unicode", "Connection: close", "Transfer-Encoding: chunked"])
def test_values_http_cannot_carry_and_hop_by_hop_headers_are_usage_errors(text):
    with pytest.raises(UsageError):
        request_headers([text], {})


def test_a_target_with_credentials_in_its_url_is_refused_without_echoing_them(capsys):
    assert main(["verify", "http://user:pw-S3CRET@127.0.0.1:9/mcp"]) == 2
    err = capsys.readouterr().err
    assert "holds credentials" in err and "S3CRET" not in err


def test_a_variable_written_with_windows_line_ends_keeps_no_carriage_return():
    """A new user's trial (issue 40): MCP_RESUME_HEADERS set from a file saved with CRLF."""
    headers = request_headers(None, {"MCP_RESUME_HEADERS": "Authorization: Bearer abc\r\nX-Tenant: t1\r\n"})
    assert headers == (("Authorization", "Bearer abc"), ("X-Tenant", "t1"))


@pytest.mark.parametrize("text", ["Authorization:", "Authorization: Bearer ", "X-Api-Key:   "])
def test_an_empty_credential_is_refused_as_an_unset_variable(text):
    """A new user's trial (issue 40): 'Authorization:' was accepted silently."""
    with pytest.raises(UsageError, match="empty or holds only a scheme"):
        request_headers([text], {})
