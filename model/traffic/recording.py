"""Recorders for the proxy: a JSON-lines file, a list in memory, or several at once.

``JsonLinesRecorder(path)`` appends one line per exchange when it ends (flushed,
so a killed proxy keeps every finished exchange); ``MemoryRecorder`` keeps the
records; ``Fanout(*recorders)`` passes every call on to each. A write that
fails stops the recording and is kept in ``JsonLinesRecorder.failure`` (one line
naming the file), never raised into the proxy: forwarding goes on.
"""

from __future__ import annotations

from pathlib import Path

from mcp_resume.model.http.evidence import SseEvent
from mcp_resume.model.traffic.records import Record, write_line


class MemoryRecorder:
    def __init__(self) -> None:
        self.records: list[Record] = []

    def started(self, record: Record) -> None:
        self.records.append(record)

    def event(self, record: Record, event: SseEvent) -> None:
        pass

    def ended(self, record: Record) -> None:
        pass


class JsonLinesRecorder:
    """Writes ``path`` (created or truncated at construction; ``OSError`` naming it).
    ``failure``: why writing stopped, or ``None``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.failure: str | None = None
        try:
            self._file = path.open("w", encoding="utf-8")
        except OSError as error:
            raise OSError(f"cannot write {path}: {error.strerror or error}") from None

    def started(self, record: Record) -> None:
        pass

    def event(self, record: Record, event: SseEvent) -> None:
        pass

    def ended(self, record: Record) -> None:
        if self.failure is not None:
            return
        try:
            self._file.write(write_line(record))
            self._file.flush()
        except OSError as error:
            self.failure = f"cannot write {self.path}: {error.strerror or error}; recording stopped at exchange {record.number}"

    def close(self) -> None:
        try:
            self._file.close()
        except OSError as error:
            self.failure = self.failure or f"cannot write {self.path}: {error.strerror or error}"


class Fanout:
    def __init__(self, *recorders) -> None:
        self.recorders = recorders

    def started(self, record: Record) -> None:
        for recorder in self.recorders:
            recorder.started(record)

    def event(self, record: Record, event: SseEvent) -> None:
        for recorder in self.recorders:
            recorder.event(record, event)

    def ended(self, record: Record) -> None:
        for recorder in self.recorders:
            recorder.ended(record)
