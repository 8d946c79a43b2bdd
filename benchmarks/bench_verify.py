"""Wall time of a full ``mcp-resume verify`` against the python-sdk target, and of the
same HTTP requests sent with plain httpx, against the same local server.

Run: ``python benchmarks/bench_verify.py [--timeout S] [--profile P]``.

1. starts the embedded ``python-sdk`` target once (not timed);
2. times the whole default verify (probe and every scenario);
3. sends the same requests again with a bare ``httpx.AsyncClient``: the same
   method, headers and JSON body, a fresh session id wherever the verify got one,
   and each response read until it ends or for as long as the verify read it
   (a stream left open is waited on just as long: those waits are the protocol's,
   not the harness's);
4. prints both wall times and their ratio (the harness's overhead).
"""

from __future__ import annotations

import argparse
import asyncio
import time

import httpx

from mcp_resume.model.http.client import Timeouts
from mcp_resume.model.http.evidence import End
from mcp_resume.model.targets.process import running_python_sdk
from mcp_resume.model.verify.suite import VerifyRun, verify
from mcp_resume.spec.profiles import Profile


async def plain_requests(url: str, exchanges) -> float:
    started = time.perf_counter()
    sessions: dict[str, str] = {}
    async with httpx.AsyncClient(timeout=httpx.Timeout(10.0, read=None), trust_env=False) as client:
        for exchange in exchanges:
            headers = dict(exchange.request_headers)
            if "mcp-session-id" in headers:
                headers["mcp-session-id"] = sessions.get(headers["mcp-session-id"], headers["mcp-session-id"])
            cap = exchange.seconds + 0.01
            try:
                async with asyncio.timeout(cap if exchange.end is not End.CLOSED else 10.0):
                    async with client.stream(exchange.method, url, headers=headers, json=exchange.request_body) as answer:
                        minted = answer.headers.get("mcp-session-id")
                        if minted and exchange.session_header:
                            sessions[exchange.session_header] = minted
                        async for _ in answer.aiter_bytes():
                            pass
            except (TimeoutError, httpx.HTTPError):
                pass
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--profile", default="auto")
    args = parser.parse_args()
    profile = None if args.profile == "auto" else Profile.parse(args.profile)
    with running_python_sdk() as url:
        run = VerifyRun(url, "python-sdk", profile, Timeouts.from_timeout(args.timeout))
        started = time.perf_counter()
        report = asyncio.run(verify(run))
        verify_seconds = time.perf_counter() - started
        exchanges = list(run.caps.exchanges) + [x for v in report.verdicts for x in v.exchanges]
        plain_seconds = asyncio.run(plain_requests(url, exchanges))
    print(f"target python-sdk, profile {report.profile.value}, --timeout {args.timeout:g}")
    print(f"verdicts: {', '.join(f'{n} {k}' for k, n in report.summary().items() if n)}")
    print(f"full verify:          {verify_seconds:7.2f} s  ({len(exchanges)} HTTP exchanges)")
    print(f"plain httpx requests: {plain_seconds:7.2f} s  (the same {len(exchanges)} requests)")
    print(f"ratio verify / plain: {verify_seconds / plain_seconds:7.2f}")


if __name__ == "__main__":
    main()
