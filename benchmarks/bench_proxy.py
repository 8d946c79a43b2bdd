"""What the recording proxy costs: latency per request and delay of SSE events.

Serves the reference server over HTTP on 127.0.0.1 and sends the same requests
directly and through ``model.traffic.recording_proxy.RecordingProxy`` (recording to memory,
the live checker off), in one run:

- ``tools/list`` round trips: median and 90th percentile, milliseconds;
- a ``test_tool_with_logging`` call's events: the time from the request to each
  event, milliseconds, median over the events of all calls.

Usage: ``python benchmarks/bench_proxy.py [--requests N]`` (default 200).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from mcp_resume.model.http.client import StreamableHttpClient, Timeouts
from mcp_resume.model.serving.facade import serving, serving_design
from mcp_resume.model.traffic.recording_proxy import RecordingProxy
from mcp_resume.model.traffic.recording import MemoryRecorder

BOUNDS = Timeouts(connect=2.0, first_byte=2.0, idle=2.0, exchange=10.0, settle=0.3)


async def measure(url: str, requests: int) -> tuple[list[float], list[float]]:
    round_trips, event_delays = [], []
    async with StreamableHttpClient(url, BOUNDS) as client:
        session = (await client.initialize()).session_header
        await client.notify(session, "notifications/initialized", label="initialized")
        for _ in range(requests):
            started = time.perf_counter()
            await client.request(session, "tools/list", label="tools/list")
            round_trips.append((time.perf_counter() - started) * 1000)
        for _ in range(max(requests // 10, 5)):
            started = time.perf_counter()
            call = await client.call_tool(session, "test_tool_with_logging", label="call")
            event_delays.append((time.perf_counter() - started) * 1000 / max(len(call.events), 1))
    return round_trips, event_delays


def _figures(name: str, round_trips: list[float], delays: list[float]) -> str:
    q = statistics.quantiles(round_trips, n=10)
    return (f"{name:8} tools/list median {statistics.median(round_trips):6.2f} ms, p90 {q[-1]:6.2f} ms; "
            f"logging call, per event {statistics.median(delays):6.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    with serving_design("reference") as upstream, serving(RecordingProxy(upstream, MemoryRecorder())) as front:
        asyncio.run(measure(upstream, 20))  # warm both paths up
        asyncio.run(measure(front, 20))
        direct = asyncio.run(measure(upstream, args.requests))
        proxied = asyncio.run(measure(front, args.requests))
    print(_figures("direct", *direct))
    print(_figures("proxied", *proxied))
    added = statistics.median(proxied[0]) - statistics.median(direct[0])
    print(f"the proxy adds {added:.2f} ms median per request "
          f"and {statistics.median(proxied[1]) - statistics.median(direct[1]):.2f} ms per SSE event")


if __name__ == "__main__":
    main()
