"""mcp-resume: stream vs session resumption in MCP Streamable HTTP, specified and checked."""

__version__ = "0.1.0"
