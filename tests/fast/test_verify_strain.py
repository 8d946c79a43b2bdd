"""What makes verify run a scenario again alone (``suite.strain``): signs of a server strained by
scenarios side by side, never what the server says of a request."""

from __future__ import annotations

import pytest

from mcp_resume.model.http.evidence import End, ErrorKind, Exchange
from mcp_resume.model.verify.judgement import Driven
from mcp_resume.model.verify.report import inconclusive, skip
from mcp_resume.model.verify.suite import strain
from mcp_resume.spec.profiles import Profile


def driven(*exchanges: Exchange, stopped=None) -> Driven:
    return Driven("replay-suffix", list(exchanges), validation=None, stopped=stopped)


def exchange(label="GET", status=200, end=End.CLOSED, error_kind=None, seconds=0.1) -> Exchange:
    made = Exchange(label, "GET", "http://127.0.0.1/mcp", status=status, end=end, seconds=seconds)
    if error_kind is not None:
        made.fail(error_kind, "the connection broke")
    return made


@pytest.mark.parametrize("status", [200, 202, 400, 404, 405, 406])
def test_an_answer_about_the_request_is_no_strain(status):
    assert strain(driven(exchange(status=status), exchange(end=End.IDLE))) is None


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504])
def test_an_overload_status_is_strain(status):
    assert strain(driven(exchange(), exchange("resume", status=status))) == f"resume: HTTP {status}"


@pytest.mark.parametrize("kind", [ErrorKind.CONNECT, ErrorKind.FIRST_BYTE, ErrorKind.NETWORK])
def test_a_refused_slow_or_broken_connection_is_strain(kind):
    assert strain(driven(exchange("open", status=None, error_kind=kind))).startswith("open: ")


@pytest.mark.parametrize("kind", [ErrorKind.NOT_JSON, ErrorKind.CONTENT_TYPE, ErrorKind.BROKEN_SSE])
def test_a_malformed_answer_is_the_server_s_own(kind):
    assert strain(driven(exchange(error_kind=kind))) is None


def test_a_read_cut_at_its_bound_is_strain():
    assert strain(driven(exchange("watch", end=End.DEADLINE, seconds=15.0))) == "watch: read to its bound of 15 s"


def test_a_scenario_cut_off_is_strain_but_one_that_skips_is_not():
    assert strain(driven(stopped=inconclusive("replay-suffix", Profile.BOUNDARY, "took too long", [], []))) \
        == "it did not finish"
    assert strain(driven(stopped=skip("replay-suffix", Profile.BOUNDARY, "no event ids"))) is None
