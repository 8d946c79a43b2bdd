"""Pages for people who check their own code: the EventStore test kit, and a CI job."""

from __future__ import annotations

import re

from mcp_resume.jobs import exits
from mcp_resume.spec.catalog import rule as catalog_rule
from mcp_resume.spec.profiles import Profile
from mcp_resume import event_store
from mcp_resume.event_store import BoundedEventStore
from mcp_resume.testing import ISOLATION_STATEMENT, ReferenceEventStore, transport
from mcp_resume.testing.kit import DEFAULT_STORE_EXAMPLES
from mcp_resume.testing.probes import CONTRACT_PROBES, LIMIT_PROBES, run_probes

from .collect import KIT_RULES
from .markdown import code, page, table
from .pages_spec import GENERATED, rule_link

USER_TEST = '''from my_server.store import MyEventStore


def test_my_event_store(event_store_check):
    report = event_store_check(MyEventStore)
    assert report.passed, report.explain()
'''


def testing_page() -> str:
    contract = run_probes(CONTRACT_PROBES, ReferenceEventStore)
    limits = run_probes(LIMIT_PROBES, ReferenceEventStore)
    shared_limits = run_probes(LIMIT_PROBES, BoundedEventStore)
    checked = [(rule_link(r), catalog_rule(r).statement, catalog_rule(r).level(Profile.BOUNDARY).value) for r in KIT_RULES]
    checked += [(rule_link(p.rule), f"contract probe `{p.name}`: {p.title}", "MUST") for p in contract]
    return page(
        "# EventStore test kit",
        GENERATED + " Source: [src/mcp_resume/testing/](../src/mcp_resume/testing/).",
        "For authors of an `EventStore` for the official MCP Python SDK "
        "(`mcp.server.streamable_http.EventStore`: `store_event`, `replay_events_after`). The kit runs the "
        "spec's Hypothesis state machine against your store, in process, from inside your own test suite.",
        "## In your test suite",
        "Installing `mcp-resume` registers its pytest plugin, which provides the `event_store_check` fixture. "
        "Add one test:",
        f"```python\n{USER_TEST}```",
        f"`pytest --mcp-resume-examples N` sets the number of Hypothesis examples (default {DEFAULT_STORE_EXAMPLES}); "
        "runs are derandomized, so a store gets the same verdict every time. Without pytest: "
        "`from mcp_resume.testing import check_event_store`, then `check_event_store(MyEventStore)` returns "
        "the same report (`passed`, `failure`, `trace`, `explain()`, `to_json()`).",
        "By default the kit checks the store the way the SDK wires it: `streamable_http_app(event_store=store)` "
        "hands one store to every session (`deployment=\"shared\"`), so a plain store that cannot keep sessions "
        "apart FAILs with the leak it showed. A server that gives every session's transport its own store "
        "checks it with `event_store_check(MyEventStore, deployment=\"per-session\")`.",
        "## What it checks",
        table(["rule", "what", "level (boundary)"], checked),
        "A counterexample is the shortest sequence of the spec's actions that breaks a rule; the kit replays it "
        "with its own correct store (`ReferenceEventStore`) to confirm the fault is the store's.",
        "## How it drives a store",
        _docstring_markdown(transport.__doc__),
        "## Session isolation",
        ISOLATION_STATEMENT,
        "## Limits of the SDK",
        "Fixed scenarios with the SDK's exact stream keys, run on every store. Checked shared (the default, "
        "how `StreamableHTTPSessionManager` uses one store for every session), a leak between sessions that a "
        "probe observes fails the report; checked per session (`deployment=\"per-session\"`) they never fail "
        "it. The column *a plain store* shows what the kit's `ReferenceEventStore`, correct when each session "
        "has its own, does when one instance serves two sessions.",
        table(["probe", "situation", "a plain store", "why", "what to do"],
              [(code(p.name), p.title, p.observed, p.why, p.remedy) for p in limits]),
        "## A store to ship: `BoundedEventStore`",
        "The remedy `verify` prints for a Python SDK server that FAILs `no-cross-session` (it knows the SDK "
        "by the server's `serverInfo`; for a server with a name of its own, `verify --sdk python-sdk`). Source: "
        "[src/mcp_resume/event_store.py](../src/mcp_resume/event_store.py). "
        + _docstring_markdown(event_store.__doc__),
        "The kit checks it in both deployments; a store that hands out views is used as the manager uses it "
        "after `scope_sessions`: one instance, a new view per session. The table shows the limit probes on it.",
        table(["probe", "with BoundedEventStore"],
              [(code(p.name), ("not exposed: " if p.held else "exposed: ") + p.observed) for p in shared_limits]),
    )


def _docstring_markdown(text: str) -> str:
    """A module docstring as Markdown: its first line dropped, reST literals as code."""
    body = text.strip().split("\n", 1)[1]
    body = re.sub(r"::\n", ":\n", body)
    return re.sub(r"``([^`]+)``", r"`\1`", body).strip()


PROXY_STEPS = '''      - name: Record the client tests through the proxy
        run: |
          mcp-resume proxy --upstream http://127.0.0.1:8000/mcp --listen 127.0.0.1:8808 \\
            --record traffic.jsonl --json proxy.json > proxy.log 2>&1 &
          echo $! > proxy.pid
          curl -s -o /dev/null --retry-connrefused --retry 30 --retry-delay 1 http://127.0.0.1:8808/mcp || true
          status=0   # keep the tests' status: the proxy is stopped (and its recording finished) either way
          MCP_URL=http://127.0.0.1:8808/mcp python -m pytest tests/client || status=$?   # your tests, at the proxy
          kill -INT "$(cat proxy.pid)"; wait "$(cat proxy.pid)" || true
          exit "$status"
      - name: Validate the recording
        if: always()
        run: mcp-resume validate traffic.jsonl --junit traffic.xml --json traffic.json
'''

MCP_RESUME_CHECKOUT = "mcp-resume"
"""The folder the job checks mcp-resume's repository out into (its ``path:``)."""
INSTALL_STEP = "Install mcp-resume in a virtualenv of its own"
VERIFY_STEP = "Verify it under the revision it negotiates"
SERVER_URL = "http://127.0.0.1:8000/mcp"
"""The endpoint the job starts the server on; tests/slow/test_ci_recipe.py runs the steps above with its own."""

JOB = f'''name: mcp-resume
on: [push, pull_request]

jobs:
  resumption:
    runs-on: ubuntu-latest
    timeout-minutes: 20
    steps:
      - uses: actions/checkout@v4                  # your server's repository
      - name: Check out mcp-resume
        uses: actions/checkout@v4
        with:
          repository: OWNER/mcp-resume             # fill in: the GitHub repository mcp-resume is in
          ref: main                                # or a tag or commit, to pin the rules the job gates on
          path: {MCP_RESUME_CHECKOUT}
          # token: ${{{{ secrets.MCP_RESUME_TOKEN }}}}  # a private repository needs a token that can read it
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - name: Install the server
        run: pip install .
      - name: {INSTALL_STEP}
        run: |
          python -m venv "$RUNNER_TEMP/mcp-resume-venv"
          "$RUNNER_TEMP/mcp-resume-venv/bin/python" -m pip install --timeout 60 ./{MCP_RESUME_CHECKOUT}
          mkdir -p "$RUNNER_TEMP/mcp-resume-bin"
          ln -sf "$RUNNER_TEMP/mcp-resume-venv/bin/mcp-resume" "$RUNNER_TEMP/mcp-resume-bin/mcp-resume"
          echo "$RUNNER_TEMP/mcp-resume-bin" >> "$GITHUB_PATH"
      - name: Start the server on 127.0.0.1
        run: |
          python -m my_server --host 127.0.0.1 --port 8000 > server.log 2>&1 &
          echo $! > server.pid
          curl -s -o /dev/null --retry-connrefused --retry 30 --retry-delay 1 {SERVER_URL}
      - name: {VERIFY_STEP}
        # the profile of the MCP revision the server negotiates (--profile auto, the default); add
        # --profile boundary to hold it to the full reconnect decision. A server without the fixture tools
        # (docs/fixtures.md) SKIPs the rules that need them: add them, or name its own tools with
        # --tool ROLE=NAME[:ARGUMENTS_JSON], e.g. --tool 'server-request=book_flight:{{"seats": 2}}'
        run: mcp-resume verify {SERVER_URL} --timeout 5 --junit report.xml --json report.json
      - name: Keep the evidence
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: mcp-resume-report
          path: |
            report.xml
            report.json
            mcp-resume-findings/
            server.log
      - name: Stop the server
        if: always()
        run: kill "$(cat server.pid)" || true
'''

EXIT_MEANINGS = (
    (exits.EXIT_OK, "every rule checked holds under the profile (WARN and SKIP included)", "passes"),
    (exits.EXIT_FAILED, "a MUST of the profile is broken: at least one FAIL verdict", "fails"),
    (exits.EXIT_USAGE, "bad usage (unknown profile, bad URL or timeout) or a missing tool", "fails"),
    (exits.EXIT_UNCHECKED, "the server could not be checked (down, never answers, not an MCP endpoint), or some "
                           "verdict is INCONCLUSIVE, or a rule of --require (any rule, with --fail-on skip) was not "
                           "checked, and none FAILs", "fails"),
    (exits.EXIT_INTERRUPTED, "interrupted (SIGINT or SIGTERM): the verdicts made so far are written, the reports "
                             "marked partial", "fails"),
)


def ci_page() -> str:
    return page(
        "# Checking a server in CI",
        GENERATED,
        "`mcp-resume verify URL` drives a running Streamable HTTP server through the reconnect scenarios and "
        "gives a verdict per rule with its evidence. Its exit code gates the job:",
        table(["exit code", "meaning", "the job"], [(str(code_), meaning, job) for code_, meaning, job in EXIT_MEANINGS]),
        "## A GitHub Actions job",
        "Start the server in the background, bound to 127.0.0.1, wait until it answers, then verify it. "
        "`--junit report.xml` writes the verdicts as a JUnit XML report, one test case per rule, which CI "
        "test-report views read; `--json report.json` keeps every request and response as evidence.",
        f"```yaml\n{JOB}```",
        "mcp-resume is not published on the package index: the job checks its repository out beside your "
        "server's and installs it from there. Fill in `OWNER/mcp-resume` with the GitHub repository it is in "
        "and pin `ref:` to a tag or commit so that the rules the job gates on change "
        "only when you move it. It gets a virtualenv of its own, so that its dependencies (the official MCP "
        "Python SDK 2.x among them) never meet your server's, and only its `mcp-resume` command is put on the "
        "`PATH` of the later steps. If that repository is private, the checkout needs a token that can read "
        "it: uncomment `token:` and store one (a fine-grained token with read access to its contents) as the "
        "`MCP_RESUME_TOKEN` secret. Without access to the repository from CI, build a wheel once in a checkout "
        "(`pip wheel --no-deps . -w dist`), keep it with your server, and install that file instead of "
        f"`./{MCP_RESUME_CHECKOUT}` (then drop the checkout step).",
        "Replace `python -m my_server ...` with however your server starts. Without `--profile` (or with "
        "`--profile auto`) verify applies the profile of the MCP revision the server negotiates: a server built "
        "on an SDK is held to what its revision requires. To hold it to the full reconnect decision, add "
        "`--profile boundary`: a server may FAIL rules there that its revision allows ([profiles](profiles.md)); "
        "`--profile mcp-2025-11-25` holds it to that revision's MUSTs only.",
        "Half of the rules need a tool that does something during its call (a server request, notifications, "
        "a long run). A server with none of them gets those rules SKIPped, and a job of SKIPs is green: add the "
        "fixture tools to the server the job starts (one call, [fixture tools](fixtures.md)), or name the "
        "server's own tools with `--tool ROLE=NAME[:ARGUMENTS_JSON]` (repeatable) in the verify step. The "
        "report lists every SKIP with what would unlock it; `--require RULE[,RULE]` makes the job fail "
        "while a rule it needs is not checked, and `--fail-on skip` while any is; the JSON report's `gate` "
        "object and the JUnit report's `gate` test case (failed when the gate is not met) carry the outcome, "
        "so a test view agrees with the exit code. A server behind auth: store "
        "its header as a secret and give it to the verify step as `env: MCP_RESUME_HEADERS: ${{ secrets.NAME }}` "
        "(one `Name: value` per line; `--header NAME:VALUE` also works): its value reaches no log, report or "
        "reproducer. An "
        "`EventStore` is better checked inside your own test suite ([the test kit](testing.md)): the same job "
        "then just runs `python -m pytest`.",
        "## Recording a client test run through the proxy",
        "A server without the conformance fixture tools cannot be driven through most rules, but your own "
        "client tests exercise it. Put `mcp-resume proxy` between them and the server, point the tests at the "
        "proxy, and validate what it recorded (the proxy's own verdicts, with `--json`, are the same). The step "
        "keeps the tests' exit status and stops the proxy with Ctrl-C (SIGINT) whatever it was, so that the "
        "recording is finished and the report written before the step ends; the tests' status then fails the "
        "step, and the validation runs anyway:",
        f"```yaml\n{PROXY_STEPS}```",
        "Each FAIL or WARN of the proxy's final report has its reproducers in `mcp-resume-findings/` (its `--out`): "
        "`<rule>.curl.sh`, the recorded requests up to it, and `<rule>.trace.json`, the spec's steps up to it, "
        "which `mcp-resume replay` runs again against a server. Upload that folder with the recording as the "
        "run's artifacts.",
        "`validate` exits 1 when a rule FAILs, 3 when none does but some rule could only be judged from "
        "exchanges the recording does not show whole (a session begun before it): record from the start.",
    )
