"""Third-party framework targets (``model.targets.frameworks``) and the compatibility page that
``mcp-resume compat`` writes for them (``mcp_resume.jobs.compatibility``)."""

from __future__ import annotations

import shutil

import pytest

from mcp_resume.jobs import compatibility as compat
from mcp_resume.model.targets import frameworks
from mcp_resume.model.targets.process import TargetStartError
from mcp_resume.spec.verdicts import Verdict
from tests.helpers.bounds import SHORT_BOUNDS


@pytest.mark.timeout(900)
@pytest.mark.covers("missing-session-400", "unknown-session-404")
def test_tmcp_mints_a_session_for_any_request(tmp_path):
    """tmcp's HttpTransport takes ``request.headers.get('mcp-session-id') || getSessionId()`` as the
    session of every request (@tmcp/transport-http src/index.js) and never looks the id up: a
    request without an id gets a fresh one (missing-session-400 FAIL), an unknown id is served
    as if live (unknown-session-404 FAIL)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed")
    fw = frameworks.framework("tmcp")
    try:
        frameworks.ensure_installed(fw)
    except TargetStartError as error:
        pytest.skip(f"tmcp cannot be installed here (offline?): {error}")
    # --timeout 2: the rules asserted are answered at once; waits only lengthen the other rules' runs
    result = compat.verify_target("tmcp", SHORT_BOUNDS)
    verdicts = {v.rule: v for v in result.reports["boundary"].verdicts}
    assert verdicts["missing-session-400"].verdict is Verdict.FAIL, verdicts["missing-session-400"].reason
    assert verdicts["unknown-session-404"].verdict is Verdict.FAIL, verdicts["unknown-session-404"].reason
    assert verdicts["new-session-on-initialize"].verdict is Verdict.PASS
    assert result.seconds["boundary"] > 0 and result.seconds["auto"] > 0
