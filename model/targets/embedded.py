"""Targets ``mcp-resume`` can start itself, by name, each on 127.0.0.1.

- ``python-sdk``: the official MCP Python SDK installed here (``model.targets.python_sdk_server``);
- ``python-sdk@<version>``: that release of the SDK in a cached virtualenv of its
  own (``model.targets.sdk_venvs``), with the fixture server for its major version;
- ``typescript-sdk`` / ``typescript-sdk@<version>``: the official TypeScript SDK
  from npm, installed into a cache folder on first use (``model.targets.typescript_sdk``);
- ``typescript-sdk-v2``, ``typescript-sdk-v2-dual``, ``python-sdk-2026``: the official SDKs'
  servers of protocol revision 2026-07-28 (each also as ``<name>@<the SDK version it runs>``),
  the TypeScript SDK v2 pinned and installed into a cache folder on first use, the Python SDK
  the one installed here (``model.targets.modern_sdks``);
- ``fastmcp-python``, ``fastmcp-typescript``, ``tmcp``, ``mcp-lite``: third-party frameworks,
  each pinned and installed into a cache folder on first use (``model.targets.frameworks``);
- ``reference`` (alias ``spec``), ``design-<n>`` and ``variation-<slug>``: the
  in-process reference server, the faulty designs and the correct variations of
  ``spec.designs`` behind the HTTP façade
  (``model.serving.facade``).

``running_target(name)`` yields the MCP endpoint URL and stops what it started.
It raises ``TargetStartError`` when the target does not start and
``ToolMissing`` when a tool it needs (node, npm) is not installed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from mcp_resume.spec import designs
from mcp_resume.model.targets.frameworks import BY_TARGET, framework
from mcp_resume.model.targets.modern_sdks import BY_TARGET as MODERN_BY_TARGET, modern_target


def embedded_help() -> str:
    """Every embedded target, one comma-separated line for help texts, generated from the
    registries (the 2026-07-28 SDK targets of ``model.targets.modern_sdks``, the frameworks of
    ``model.targets.frameworks``, the faulty designs and the
    correct variations of ``spec.designs``), so that no target is left out of ``--help``."""
    return ("python-sdk, python-sdk@VERSION, typescript-sdk, typescript-sdk@VERSION, "
            f"{', '.join(MODERN_BY_TARGET)}, {', '.join(BY_TARGET)}, reference (alias spec), "
            f"design-N (N = {designs.numbers_text()}, the faulty designs), "
            + ", ".join(v.target for v in designs.VARIATIONS))


EMBEDDED_HELP = embedded_help()
_VERSIONED = re.compile(r"^(python-sdk|typescript-sdk)@(\d+\.\d+\.\d+)$")


class ToolMissing(RuntimeError):
    """A tool an embedded target needs is not installed; the message says how to get it."""


def is_embedded(name: str) -> bool:
    """True when ``name`` names a target ``running_target`` can start."""
    if name in ("python-sdk", "typescript-sdk", "reference", "spec") or _VERSIONED.match(name):
        return True
    if framework(name) is not None or modern_target(name) is not None:
        return True
    return designs.by_target(name) is not None


@contextmanager
def running_target(name: str) -> Iterator[str]:
    """Start the embedded target ``name``; yield its MCP endpoint URL."""
    from mcp_resume.model.targets.process import TargetStartError, running_python_sdk  # httpx: only to start one

    versioned = _VERSIONED.match(name)
    if name == "python-sdk":
        with running_python_sdk() as url:
            yield url
    elif name == "typescript-sdk" or (versioned and versioned.group(1) == "typescript-sdk"):
        from mcp_resume.model.targets.typescript_sdk import DEFAULT_VERSION, running_typescript_sdk

        with running_typescript_sdk(versioned.group(2) if versioned else DEFAULT_VERSION) as url:
            yield url
    elif modern_target(name) is not None:
        from mcp_resume.model.targets.modern_sdks import running_modern_sdk

        with running_modern_sdk(name) as url:
            yield url
    elif framework(name) is not None:
        from mcp_resume.model.targets.frameworks import running_framework

        with running_framework(name) as url:
            yield url
    elif versioned:
        from mcp_resume.model.targets.sdk_venvs import running_python_sdk_release

        with running_python_sdk_release(versioned.group(2)) as url:
            yield url
    elif is_embedded(name):
        from mcp_resume.model.serving.facade import serving_design

        with serving_design(name) as url:
            yield url
    else:
        raise TargetStartError(f"unknown embedded target {name!r}; known: {EMBEDDED_HELP}")
