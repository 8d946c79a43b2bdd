"""Embedded servers die with the process that started them, even when it is SIGKILLed.

``verify python-sdk`` is killed mid-run: its server's pid must be gone and its port
closed within a few seconds (the kernel's parent-death signal on Linux). The
watch each Python and node server keeps on its parent (stdin pipe, parent pid) is
checked on its own, without that signal, by a parent that is SIGKILLed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mcp_resume.model.targets.process import guarded


def _run_watched(argv: list[str], folder: Path) -> tuple[int, str]:
    """Run guarded ``argv`` with its stdin held open until it ends (closing it would end it)."""
    output = folder / "stdout.txt"
    with output.open("w") as stdout:
        process = subprocess.Popen(guarded(argv), stdin=subprocess.PIPE, stdout=stdout, stderr=subprocess.STDOUT)
        code = process.wait(30)
        process.stdin.close()
    return code, output.read_text()


def test_the_watch_runs_the_server_module_or_script_after_it(tmp_path):
    script = tmp_path / "hello.py"
    script.write_text("import sys\nprint('hello', sys.argv[1:], __name__)\n")
    assert _run_watched([sys.executable, str(script), "--port", "1"], tmp_path) == (0, "hello ['--port', '1'] __main__\n")
    code, text = _run_watched([sys.executable, "-m", "json.tool", "--help"], tmp_path)
    assert code == 0 and "json.tool" in text, text
