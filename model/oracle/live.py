"""The proxy's live checker: the records so far validated again whenever they change.

``LiveChecker`` is a recorder (``model.traffic.recording_proxy.Recorder``). Every event and
every end marks the recording changed; a worker thread validates all records
seen so far (``validate``), at most once per ``interval`` seconds, and calls
``on_finding(result)`` once for each rule the first time it FAILs or WARNs. An
exchange still running counts with what it delivered so far, once its response
head is ``REPLAY_WINDOW`` seconds old (before that, what a GET delivers at once
may be incomplete). A DELETE counts once its answer is ``REPLAY_WINDOW`` seconds
old: ``validate`` takes the session's streams that end within that window as the
ones the DELETE closed, so an earlier look would see them still open; a later exchange of
that session counts with it (a client may reconnect at once to the session it just ended,
which is judged against the DELETE). The final
validation (``stop``) counts every record, as ``validate`` on the recording does.
Validating in a thread keeps the proxy's event loop free: forwarding never waits
for a check.
"""

from __future__ import annotations

import copy
import threading
from typing import Callable

from mcp_resume.model.http.evidence import SseEvent
from mcp_resume.model.traffic.records import Record
from mcp_resume.model.oracle.judge import judge
from mcp_resume.model.traffic.trace_validation import REPLAY_WINDOW, RuleResult, Validation
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

INTERVAL_SECONDS = 0.2


class LiveChecker:
    def __init__(self, profile: Profile | None, on_finding: Callable[[RuleResult, Validation], None],
                 clock: Callable[[], float], interval: float = INTERVAL_SECONDS) -> None:
        self.profile = profile
        self.clock = clock
        self.on_finding = on_finding
        self.interval = interval
        self.judged_records: list[Record] = []  # the records the latest judgement saw
        self.records: list[Record] = []
        self.reported: set[str] = set()
        self.latest: Validation | None = None
        self._lock = threading.Lock()
        self._changed = threading.Event()
        self._stopping = threading.Event()
        self._worker = threading.Thread(target=self._run, name="mcp-resume live checker", daemon=True)
        self._worker.start()

    def started(self, record: Record) -> None:
        with self._lock:
            self.records.append(record)
        self._changed.set()

    def event(self, record: Record, event: SseEvent) -> None:
        self._changed.set()

    def ended(self, record: Record) -> None:
        self._changed.set()

    def stop(self) -> Validation:
        """Stop the worker and validate once more; the final validation."""
        self._stopping.set()
        self._changed.set()
        self._worker.join(10)
        return self.check(final=True)

    def check(self, final: bool = False) -> Validation:
        """Validate the records so far now, reporting new findings; ``final`` counts every
        record, settled or not."""
        with self._lock:
            now = self.clock()
            counted = self.records if final else _counted(self.records, now)
            snapshot = [_snapshot(r) for r in counted]
        result = judge(snapshot, self.profile)
        self.judged_records = snapshot
        for rule in result.results:
            if rule.verdict in (Verdict.FAIL, Verdict.WARN) and rule.rule not in self.reported:
                self.reported.add(rule.rule)
                self.on_finding(rule, result)
        self.latest = result
        return result

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._changed.wait()
            if self._stopping.is_set():
                return
            self._changed.clear()
            self.check()
            self._stopping.wait(self.interval)


def _counted(records: list[Record], now: float) -> list[Record]:
    """The records settled at ``now`` (``_settled``), without those that began after a DELETE of
    their session that has not settled yet: each counts once that DELETE does."""
    held: dict[str, float] = {}  # session -> when its earliest unsettled DELETE began
    for record in records:
        session = record.exchange.request_headers.get("mcp-session-id")
        if record.exchange.method == "DELETE" and session is not None and not _settled(record, now):
            held[session] = min(held.get(session, record.started), record.started)
    return [r for r in records if _settled(r, now)
            and r.started < held.get(r.exchange.request_headers.get("mcp-session-id"), float("inf"))]


def _settled(record: Record, now: float) -> bool:
    """Whether ``record`` counts at ``now`` as the final validation will see it: an ended
    exchange does, a DELETE once its answer is ``REPLAY_WINDOW`` seconds old (the streams
    it closes have ended by then), a running exchange once its head is that old (what
    its GET delivered at once is then complete)."""
    if record.exchange.method == "DELETE":
        return record.ended is not None and now - record.ended > REPLAY_WINDOW
    if record.ended is not None:
        return True
    return record.head is not None and now - record.head > REPLAY_WINDOW


def _snapshot(record: Record) -> Record:
    """``record`` as far as it got: the events that have their arrival time, the end
    only once written (the proxy's thread appends to both while this one reads)."""
    ended, end = record.ended, record.exchange.end
    count = min(len(record.exchange.events), len(record.arrivals))
    exchange = copy.copy(record.exchange)
    exchange.events = list(record.exchange.events[:count])
    exchange.end = end if ended is not None else None
    return Record(record.number, record.started, exchange, list(record.arrivals[:count]), ended, record.timed,
                  record.head)
