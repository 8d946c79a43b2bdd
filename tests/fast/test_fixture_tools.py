"""The fixture tools as a kit (``mcp_resume.fixtures.add_fixture_tools``) and a server's own
tools in their roles (``verify --tool ROLE=NAME[:ARGUMENTS_JSON]``), on servers written as
the official Python SDK's README shows, started here on 127.0.0.1 (issue 25)."""

from __future__ import annotations

import asyncio

import pytest

from mcp_resume.cli import main
from mcp_resume.fixtures import add_fixture_tools
from mcp_resume.model.verify import fixture_tools
from mcp_resume.model.verify.answers import answer_to
from mcp_resume.model.verify.roles import ToolRoleError, parse_tool_option
from mcp_resume.model.verify.suite import SCENARIOS
from mcp_resume.spec.catalog import RULES
from tests.helpers.servers.sdk_readme import BOOKING


SERVER_REQUEST_RULES = [rule for rule, s in SCENARIOS.items() if "server-request-tool" in s.needs]

pytestmark = [pytest.mark.timeout(300)]


def test_the_kit_refuses_what_is_not_a_server_of_the_official_sdk():
    for thing in (object(), {"name": "Demo"}):
        with pytest.raises(TypeError, match="MCPServer.*FastMCP.*lowlevel.Server.*--tool"):
            add_fixture_tools(thing)


def test_the_kit_adds_the_defined_tools_with_their_arguments():
    from mcp.server.mcpserver import MCPServer

    server = add_fixture_tools(MCPServer("Demo"))
    listed = {tool.name: tool for tool in asyncio.run(server.list_tools())}
    assert set(listed) == set(fixture_tools.NAMES)
    for tool in fixture_tools.FIXTURE_TOOLS:
        properties = listed[tool.name].input_schema.get("properties", {})
        assert set(properties) == {a.name for a in tool.arguments}, tool.name
        assert all(properties[a.name].get("default") == a.default for a in tool.arguments)


@pytest.mark.parametrize("value, message", [
    ("server-request", "expected ROLE=NAME"),
    ("elicitor=book_flight", "unknown role 'elicitor'; the roles are notifications, server-request, long-running"),
    ("server-request=", "no tool name"),
    ("server-request=book_flight:{to: Oslo}", "not JSON"),
    ("server-request=book_flight:[1, 2]", "must be a JSON object"),
])
def test_a_bad_tool_value_says_what_to_do(value, message, capsys):
    with pytest.raises(ToolRoleError, match=message.replace("(", r"\(")):
        parse_tool_option(value)
    assert main(["verify", "http://127.0.0.1:9/mcp", "--tool", value]) == 2
    assert message in capsys.readouterr().err


def test_a_tool_value_names_role_tool_and_arguments():
    use = parse_tool_option('server-request=book_flight:{"destination": "Oslo", "seats": 2}')
    assert (use.role, use.name, use.arguments, use.given) == (fixture_tools.Role.SERVER_REQUEST, "book_flight",
                                                              BOOKING, True)
    assert parse_tool_option("long-running=long_job").arguments == {}


def test_the_answer_to_an_elicitation_fits_its_form():
    schema = {"type": "object", "properties": {
        "confirm": {"type": "boolean"}, "seats": {"type": "integer", "minimum": 1},
        "cabin": {"type": "string", "enum": ["economy", "business"]}, "note": {"type": "string"},
        "seat": {"type": "string", "default": "aisle"}}, "required": ["confirm"]}
    answer = answer_to("elicitation/create", {"message": "Book?", "requestedSchema": schema})
    assert answer == {"action": "accept", "content": {"confirm": True, "seats": 1, "cabin": "economy",
                                                      "note": "mcp-resume", "seat": "aisle"}}
    assert answer_to("elicitation/create", {"mode": "url", "url": "https://example.com"}) == {"action": "accept"}
    assert answer_to("roots/list", None) == {"roots": []}


def test_every_catalog_rule_a_role_drives_exists():
    ids = {rule.id for rule in RULES}
    assert all(set(rules) <= ids for rules in fixture_tools.ROLE_USES.values())


def test_the_fixtures_page_defines_every_tool_from_the_one_definition():
    from mcp_resume.docgen.pages_fixtures import fixtures_page
    from mcp_resume.docgen.pages_rules import PAGES
    from mcp_resume.model.targets.typescript_sdk import FIXTURE_TOOLS as TYPESCRIPT_KIT

    text = fixtures_page()
    assert any(name == "fixtures.md" for name, _, _ in PAGES)  # linked from the index
    for tool in fixture_tools.FIXTURE_TOOLS:
        section = text.split(f"### `{tool.name}`")[1].split("### ")[0]
        assert all(step in section for step in tool.sends) and tool.waits in section
        assert all(f"`{a.name}`" in section for a in tool.arguments)
        for rule in SERVER_REQUEST_RULES if tool.role is fixture_tools.Role.SERVER_REQUEST else ():
            assert f"rules/{rule}.md" in section
    assert f"{fixture_tools.STEP_SECONDS:g} s apart" in text and f"at most {fixture_tools.ANSWER_TIMEOUT_SECONDS:g} s" in text
    assert TYPESCRIPT_KIT.read_text(encoding="utf-8") in text and "add_fixture_tools(server)" in text
    assert "--tool" in text and all(f"`{role.value}`" in text for role in fixture_tools.Role)


def test_the_fixtures_page_python_example_runs_as_written():
    """docs/fixtures.md's example, executed: it names only what exists (mcp_resume.event_store's
    BoundedEventStore and scope_sessions), adds the five tools and builds the app."""
    from mcp_resume.docgen.pages_fixtures import PYTHON_EXAMPLE
    from mcp_resume.event_store import _ScopesSessions

    namespace: dict = {}
    exec(compile(PYTHON_EXAMPLE, "docs/fixtures.md", "exec"), namespace)
    server, app = namespace["server"], namespace["app"]
    names = {tool.name for tool in asyncio.run(server.list_tools())}
    assert {"add", *fixture_tools.BY_NAME} <= names
    assert callable(app) and isinstance(server.session_manager, _ScopesSessions)


def test_an_unknown_sdk_is_a_usage_error_listing_the_known_ones(capsys):
    assert main(["verify", "http://127.0.0.1:1/mcp", "--sdk", "django"]) == 2
    err = capsys.readouterr().err
    assert "--sdk 'django': unknown SDK" in err and "python-sdk, typescript-sdk" in err and "mcp-lite" in err
