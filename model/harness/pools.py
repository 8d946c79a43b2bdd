"""Stopping a process pool at once, for an interrupted run.

``ProcessPoolExecutor.shutdown`` waits for the tasks already running, so an
interrupted ``check`` or kill matrix would go on for minutes and write what its
workers finish. ``stop_workers(pool)`` ends the workers by their process ids
(SIGTERM, then SIGKILL after ``GRACE_SECONDS``) and reaps them.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

GRACE_SECONDS = 3.0


def stop_workers(pool: ProcessPoolExecutor) -> None:
    """Cancel what has not started and end every worker process of ``pool`` now."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(GRACE_SECONDS)
        if process.is_alive():
            process.kill()
            process.join(GRACE_SECONDS)
