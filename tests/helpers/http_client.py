"""What tests/fast/test_http_client.py and tests/slow/test_http_client.py share."""

from __future__ import annotations

import asyncio

from mcp_resume.model.http.client import Timeouts, StreamableHttpClient


FAST = Timeouts(connect=1.0, first_byte=1.0, idle=1.0, exchange=3.0, settle=0.5)


def run(coro):
    return asyncio.run(coro)


async def initialize(url: str, bounds: Timeouts = FAST):
    async with StreamableHttpClient(url, bounds) as client:
        return await client.initialize()
