// The embedded target "typescript-sdk": the official MCP TypeScript SDK over Streamable HTTP.
//
// Run as: node server.mjs PORT (binds 127.0.0.1 only; NODE_PATH is not needed: the
// folder it runs from holds node_modules with @modelcontextprotocol/sdk).
// One StreamableHTTPServerTransport per session, each with the SDK's own
// InMemoryEventStore, as the SDK's examples wire it; the session routing below is
// this fixture's (unknown id -> 404, no id on a non-initialize request -> 400).
// The tools are named after the MCP conformance fixtures (docs/design.md §7).
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { InMemoryEventStore } from "@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js";

const HOST = "127.0.0.1";
const MCP_PATH = "/mcp";
const STEP_MS = 50;
const RECONNECT_PAUSE_MS = 300;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value) => ({ content: [{ type: "text", text: value }] });

function buildServer() {
  const server = new McpServer({ name: "mcp-resume typescript-sdk target", version: "1.0.0" }, { capabilities: { logging: {} } });
  const log = (extra, data) =>
    extra.sendNotification({ method: "notifications/message", params: { level: "info", data } });

  server.registerTool("test_tool_with_logging", { description: "Send three log notifications, then answer." }, async (extra) => {
    for (const step of [1, 2, 3]) {
      await log(extra, `logging step ${step}`);
      await sleep(STEP_MS);
    }
    return text("logged three messages");
  });
  server.registerTool("test_tool_with_progress", { description: "Report progress three times, then answer." }, async (extra) => {
    const token = extra._meta?.progressToken;
    for (const step of [1, 2, 3]) {
      if (token !== undefined) {
        await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: step, total: 3 } });
      }
      await sleep(STEP_MS);
    }
    return text("progress reported");
  });
  server.registerTool("test_sampling", { description: "Ask the client for a completion." }, async (extra) => {
    const result = await server.server.createMessage(
      { messages: [{ role: "user", content: { type: "text", text: "Say hello" } }], maxTokens: 32 },
      { relatedRequestId: extra.requestId, timeout: 120000 },
    );
    return text(result.content?.text ?? "sampled");
  });
  server.registerTool("test_elicitation", { description: "Ask the client to fill a form." }, async (extra) => {
    const result = await server.server.elicitInput(
      { message: "Please answer", requestedSchema: { type: "object", properties: { answer: { type: "string" } } } },
      { relatedRequestId: extra.requestId, timeout: 120000 },
    );
    return text(`elicitation ${result.action}`);
  });
  server.registerTool("test_reconnection", { description: "Close this call's SSE connection mid-call." }, async (extra) => {
    await log(extra, "before the connection closes");
    await sleep(STEP_MS);
    extra.closeSSEStream?.();
    await sleep(RECONNECT_PAUSE_MS);
    await log(extra, "after the connection closed");
    return text("reconnection test finished");
  });
  return server;
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
