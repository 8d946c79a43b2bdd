"""Real servers behind auth and TLS (issue 40): the official Python SDK, started here on
127.0.0.1, behind a bearer token or serving https with a certificate this test's own CA signs."""

from __future__ import annotations

import json

import pytest
import trustme
from starlette.responses import PlainTextResponse

from mcp_resume.cli import main

from tests.helpers.servers.sdk_readme import readme_app, serving_app

TOKEN = "s3cret-token-4f1e"
TIMEOUT = "2"


def _behind_bearer_token(app):
    """``app`` answering 401 to any request without ``Authorization: Bearer TOKEN``."""
    async def guarded(scope, receive, send):
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != f"Bearer {TOKEN}".encode():
            return await PlainTextResponse("unauthorized", status_code=401)(scope, receive, send)
        return await app(scope, receive, send)
    return guarded


def _reports(tmp_path, name: str) -> list[str]:
    return ["--json", str(tmp_path / f"{name}.json"), "--junit", str(tmp_path / f"{name}.xml"),
            "--markdown", str(tmp_path / f"{name}.md"), "--out", str(tmp_path / f"{name}-findings")]


@pytest.mark.timeout(300)
def test_a_server_behind_a_bearer_token_is_verified_with_header_and_the_token_is_written_nowhere(
        tmp_path, capsys, monkeypatch):
    with serving_app(_behind_bearer_token(readme_app(fixtures=True))) as url:
        assert main(["verify", url, "--timeout", TIMEOUT, "--json", str(tmp_path / "refused.json")]) == 3
        assert "the server needs credentials: give them with --header" in capsys.readouterr().err
        assert main(["verify", url, "--timeout", TIMEOUT, "--header", "Authorization: Bearer wrong"]) == 3
        err = capsys.readouterr().err
        assert "refused the credentials given (Authorization, values not shown)" in err and "wrong" not in err
        argv = ["verify", url, "--timeout", TIMEOUT, "--header", f"Authorization: Bearer {TOKEN}"]
        assert main(argv + _reports(tmp_path, "given")) in (0, 1)
        printed = capsys.readouterr()
        monkeypatch.setenv("MCP_RESUME_HEADERS", f"Authorization: Bearer {TOKEN}\n")
        assert main(["verify", url, "--timeout", TIMEOUT] + _reports(tmp_path, "from-env")) in (0, 1)
    report = json.loads((tmp_path / "given.json").read_text())
    assert report["capabilities"]["headers"] == ["Authorization"]
    assert report["summary"]["PASS"] >= 10  # the server was reached and judged, not refused
    assert json.loads((tmp_path / "from-env.json").read_text())["summary"] == report["summary"]
    written = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert len(written) > 6
    assert not [path for path in written if TOKEN in path.read_text(errors="replace")]
    assert TOKEN not in printed.out + printed.err
    for script in tmp_path.rglob("*.curl.sh"):
        assert '-H @"$HEADERS_FILE"' in script.read_text() and "MCP_RESUME_HEADERS_FILE" in script.read_text()


@pytest.mark.timeout(300)
def test_an_https_server_is_verified_against_the_trust_store_and_refused_without_it(tmp_path, capsys, monkeypatch):
    authority = trustme.CA()
    certificate = authority.issue_cert("127.0.0.1")
    cert_file, key_file, ca_file = tmp_path / "cert.pem", tmp_path / "key.pem", tmp_path / "ca.pem"
    certificate.cert_chain_pems[0].write_to_path(str(cert_file))
    certificate.private_key_pem.write_to_path(str(key_file))
    authority.cert_pem.write_to_path(str(ca_file))
    with serving_app(readme_app(fixtures=True), tls=(str(cert_file), str(key_file))) as url:
        assert url.startswith("https://127.0.0.1:")
        monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "no-such-ca.pem"))  # a trust store without our CA
        assert main(["verify", url, "--timeout", TIMEOUT, "--out", str(tmp_path / "untrusted")]) == 3
        assert "certificate" in capsys.readouterr().err.lower()
        monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))
        assert main(["verify", url, "--timeout", TIMEOUT, "--json", str(tmp_path / "r.json")]) in (0, 1)
    assert json.loads((tmp_path / "r.json").read_text())["summary"]["PASS"] >= 10


@pytest.mark.timeout(120)
def test_a_spec_trace_replays_over_http_behind_a_bearer_token_with_header(tmp_path, capsys):
    from mcp_resume.spec import actions as a
    from mcp_resume.spec.trace import Trace

    trace = Trace((a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.Respond("T1")))
    path = tmp_path / "call.trace.json"
    path.write_text(trace.dumps(), encoding="utf-8")
    with serving_app(_behind_bearer_token(readme_app(fixtures=True))) as url:
        assert main(["replay", str(path), url, "--timeout", TIMEOUT]) == 3
        refused = capsys.readouterr()
        assert main(["replay", str(path), url, "--timeout", TIMEOUT, "--header", f"Authorization: Bearer {TOKEN}"]) == 0
        replayed = capsys.readouterr()
    assert "401" in refused.err
    assert "agree with the spec" in replayed.out and TOKEN not in replayed.out + replayed.err
