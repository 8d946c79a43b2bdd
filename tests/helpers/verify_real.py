"""What tests/fast/test_verify_real.py and tests/slow/test_verify_real.py share."""

from __future__ import annotations

import json

from mcp_resume.cli import main
from tests.helpers.servers.variants import serving_variant


def full_run(variant, tmp_path, *options):
    path = tmp_path / "report.json"
    with serving_variant(variant) as url:
        code = main(["verify", url, "--timeout", "2", "--json", str(path), *options])
    return code, json.loads(path.read_text())
