// The embedded target "typescript-sdk": the official MCP TypeScript SDK over Streamable HTTP.
//
// Run as: node server.mjs PORT (binds 127.0.0.1 only; NODE_PATH is not needed: the
// folder it runs from holds node_modules with @modelcontextprotocol/sdk).
// One StreamableHTTPServerTransport per session, each with the SDK's own
// InMemoryEventStore, as the SDK's examples wire it; the session routing below is
// this fixture's (unknown id -> 404, no id on a non-initialize request -> 400).
// The tools are the fixture tools of docs/fixtures.md, added by fixture_tools.mjs (the
// TypeScript kit, copied next to this file).
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { InMemoryEventStore } from "@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js";
import { addFixtureTools } from "./fixture_tools.mjs";

const HOST = "127.0.0.1";
const MCP_PATH = "/mcp";

function buildServer() {
  const server = new McpServer({ name: "mcp-resume typescript-sdk target", version: "1.0.0" }, { capabilities: { logging: {} } });
  return addFixtureTools(server);
}

const transports = new Map();

async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const raw = Buffer.concat(chunks).toString("utf8");
  try {
    return raw ? JSON.parse(raw) : undefined;
  } catch {
    return undefined;
  }
}

function refuse(res, status, message) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

async function handle(req, res) {
  if (new URL(req.url, `http://${HOST}`).pathname !== MCP_PATH) return refuse(res, 404, "not found");
  const sessionId = req.headers["mcp-session-id"];
  const body = req.method === "POST" ? await readJson(req) : undefined;
  if (sessionId !== undefined) {
    const transport = transports.get(sessionId);
    if (!transport) return refuse(res, 404, "Session not found");
    return transport.handleRequest(req, res, body);
  }
  if (req.method === "POST" && body !== undefined && isInitializeRequest(body)) {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new InMemoryEventStore(),
      retryInterval: 1000,
      onsessioninitialized: (id) => transports.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
    };
    await buildServer().connect(transport);
    return transport.handleRequest(req, res, body);
  }
  return refuse(res, 400, "Bad Request: Mcp-Session-Id header is required");
}

const port = Number(process.argv[2]);
createServer((req, res) => {
  handle(req, res).catch((error) => {
    if (!res.headersSent) refuse(res, 500, String(error));
  });
}).listen(port, HOST);
