"""Run a Python server so that it dies with the process that started it (stdlib only).

Started as ``python -c <this file's text> [-m MODULE | SCRIPT] ARGS...`` by
``model.targets.process.running_server``, which keeps the write end of the
child's stdin open and never writes to it, and puts its own pid in
``MCP_RESUME_PARENT_PID``. Two daemon threads end this process (``os._exit``)
when the parent is gone, even if it was SIGKILLed: one reads stdin to its end
(the pipe closes when the parent dies), one polls the parent pid every
``POLL_SECONDS``. Then the module or script runs as ``__main__``. The text is
run by interpreters in other virtualenvs, so it imports nothing of ours.
"""

import os
import runpy
import sys
import threading
import time

POLL_SECONDS = 0.5


def _read_to_end() -> None:
    try:
        while os.read(0, 65536):  # the raw descriptor: a buffered reader's lock would hang the shutdown
            pass
    except OSError:
        pass
    os._exit(0)


def _poll_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(POLL_SECONDS)
    os._exit(0)


def watch_parent() -> None:
    parent = int(os.environ.get("MCP_RESUME_PARENT_PID") or os.getppid())
    if os.getppid() != parent:
        os._exit(0)
    threading.Thread(target=_read_to_end, name="parent-pipe", daemon=True).start()
    threading.Thread(target=_poll_parent, args=(parent,), name="parent-pid", daemon=True).start()


def run_main(argv: list) -> None:
    if argv[0] == "-m":
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    elif argv[0] == "-c":
        sys.argv = ["-c", *argv[2:]]
        sys.path[0] = ""
        exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})
    else:
        sys.argv = argv
        sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
        runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    watch_parent()
    run_main(sys.argv[1:])
