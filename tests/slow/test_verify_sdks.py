"""``mcp-resume verify python-sdk`` and ``verify typescript-sdk``: a verdict for every rule,
each with evidence, and the same verdicts on a second run."""

from __future__ import annotations

import json
import shutil

import pytest

from mcp_resume.cli import main
from mcp_resume.spec.catalog import RULES

pytestmark = pytest.mark.timeout(600)  # the official SDKs started for real and verified, twice each


def _twice(target: str, tmp_path, timeout: str) -> tuple[dict, dict]:
    runs = []
    for number in (1, 2):
        path = tmp_path / f"{number}.json"
        code = main(["verify", target, "--profile", "boundary", "--timeout", timeout, "--json", str(path)])
        assert code == 1, f"run {number} of {target}"
        runs.append({v["rule"]: v for v in json.loads(path.read_text())["verdicts"]})
    return runs[0], runs[1]


def _assert_judged_with_evidence(verdicts: dict) -> None:
    assert list(verdicts) == [r.id for r in RULES]
    for rule, verdict in verdicts.items():
        assert verdict["verdict"] != "INCONCLUSIVE", (rule, verdict["evidence"]["reason"])
        if verdict["verdict"] == "SKIP":
            assert verdict["evidence"]["reason"], rule
        else:
            assert verdict["evidence"]["checks"] and verdict["evidence"]["exchanges"], rule


def test_python_sdk_verdicts_are_complete_and_repeat(tmp_path):
    first, second = _twice("python-sdk", tmp_path, "2")  # as tests/slow/test_verify_python_sdk.py: it answers at once
    _assert_judged_with_evidence(first)
    assert {r: v["verdict"] for r, v in first.items()} == {r: v["verdict"] for r, v in second.items()}


@pytest.mark.skipif(shutil.which("node") is None or shutil.which("npm") is None, reason="node and npm are not installed")
def test_typescript_sdk_verdicts_are_complete_and_repeat(tmp_path):
    first, second = _twice("typescript-sdk", tmp_path, "5")
    _assert_judged_with_evidence(first)
    assert {r: v["verdict"] for r, v in first.items()} == {r: v["verdict"] for r, v in second.items()}
    # The SDK's InMemoryEventStore replays in the order of sorted event ids
    # '<stream>_<milliseconds>_<random>': of two events stored in the same millisecond the one
    # with the smaller random part sorts first, whichever came first. replay-suffix's short
    # streams written back to back show it in every run; every broken check is a resumption.
    for run in (first, second):
        broken = [c for c in run["replay-suffix"]["evidence"]["checks"] if not c["held"]]
        assert run["replay-suffix"]["verdict"] == "FAIL"
        assert all(c["what"].startswith("resume ") for c in broken), broken
        assert any(c["what"].startswith("resume tools/list stream ") for c in broken), broken
    # measured: the SDK keeps one event store per session, so nothing crosses sessions,
    # but it neither re-emits pending requests nor refuses a foreign event id
    assert first["no-cross-session"]["verdict"] == "PASS"
    assert first["reemit-pending"]["verdict"] == "FAIL"
    assert first["reject-foreign-event-id"]["verdict"] == "FAIL"


def test_without_node_the_typescript_target_says_how_to_get_it(monkeypatch, capsys):
    from mcp_resume.model.targets import typescript_sdk

    monkeypatch.setattr(typescript_sdk.shutil, "which", lambda name: None)
    assert main(["verify", "typescript-sdk"]) == 2
    err = capsys.readouterr().err
    assert "node not found" in err and "apt-get install nodejs npm" in err and err.count("\n") == 1
