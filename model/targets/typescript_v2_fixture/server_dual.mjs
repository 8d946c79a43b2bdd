// The embedded target "typescript-sdk-v2-dual": the official MCP TypeScript SDK v2
// (@modelcontextprotocol/server) serving both eras on one endpoint: 2026-07-28 requests and
// 2025-11-25 sessions opened with initialize.
//
// Run as: node server_dual.mjs PORT (binds 127.0.0.1 only; the folder it runs from holds
// node_modules with @modelcontextprotocol/server, @modelcontextprotocol/node and zod).
// Wired the way the SDK documents for keeping sessionful 2025 serving next to a strict
// modern endpoint on Node.js (createMcpHandler.ts isLegacyRequest, @modelcontextprotocol/node
// toWebRequest): the body is parsed once, every request is classified with the SDK's own
// isLegacyRequest(await toWebRequest(req, body)); what it calls legacy (no _meta envelope claim:
// initialize, GET, DELETE, posted responses, session-era requests) goes to a sessionful
// NodeStreamableHTTPServerTransport per session, with an in-memory event store, and everything
// else to toNodeHandler(createMcpHandler(factory, { legacy: "reject" })). One factory builds
// both: a "legacy" McpServer per session (every fixture tool, server requests included) and a
// "modern" one per 2026-07-28 request (no server requests, which that revision forbids).
// The session routing is this fixture's, as in the v1 fixture: an unknown Mcp-Session-Id 404,
// no id on a session-era request other than initialize 400.
//
// NodeStreamableHTTPServerTransport, not WebStandardStreamableHTTPServerTransport behind
// toNodeHandler: toNodeHandler (@modelcontextprotocol/node dist/index.mjs, res.writeHead) never
// flushes the headers of a streamed body, so a standalone GET stream, which starts with no
// event (no priming event on it), shows its status line only with its first event or its first
// keep-alive comment (keepAliveMs, 15000 ms by default); the Node transport's @hono/node-server
// listener flushes them at once.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer, createMcpHandler, isInitializeRequest, isLegacyRequest } from "@modelcontextprotocol/server";
import {
  NodeStreamableHTTPServerTransport,
  localhostHostValidation,
  localhostOriginValidation,
  toNodeHandler,
  toWebRequest,
} from "@modelcontextprotocol/node";
import { addFixtureTools } from "./fixture_tools.mjs";

const HOST = "127.0.0.1";
const MCP_PATH = "/mcp";
const RETRY_INTERVAL_MS = 1000;
const MAX_BODY_BYTES = 4 * 1024 * 1024; // the SDK's default maxRequestBodySize

// An EventStore (the SDK's interface, streamableHttp.ts): ids from one counter per session, one
// ordered list per stream; replay sends the later events of the cursor's own stream, skipping
// priming events (stored as {}), and an id this store never issued has no stream (the transport
// then answers 400 'Invalid event ID format').
class InMemoryEventStore {
  #counter = 0;
  #streamOf = new Map();
  #streams = new Map();

  async storeEvent(streamId, message) {
    const eventId = `ev-${++this.#counter}`;
    this.#streamOf.set(eventId, streamId);
    if (!this.#streams.has(streamId)) this.#streams.set(streamId, []);
    this.#streams.get(streamId).push({ eventId, message });
    return eventId;
  }

  async getStreamIdForEventId(eventId) {
    return this.#streamOf.get(eventId);
  }

  async replayEventsAfter(lastEventId, { send }) {
    const streamId = this.#streamOf.get(lastEventId);
    if (streamId === undefined) return "";
    const events = this.#streams.get(streamId);
    const position = events.findIndex((event) => event.eventId === lastEventId);
    for (const { eventId, message } of events.slice(position + 1)) {
      if (message && "jsonrpc" in message) await send(eventId, message);
    }
    return streamId;
  }
}

const factory = ({ era }) =>
  addFixtureTools(new McpServer({ name: "mcp-resume typescript-sdk-v2-dual target", version: "1.0.0" }, { capabilities: { logging: {} } }), era);
const modern = toNodeHandler(createMcpHandler(factory, { legacy: "reject" }));
const sessions = new Map();

function refuse(res, status, message) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

// The POST body as parsed JSON; undefined when it is empty, not JSON or over MAX_BODY_BYTES
// (each transport then answers its own parse error).
async function readJson(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  try {
    const raw = Buffer.concat(chunks).toString("utf8");
    return raw ? JSON.parse(raw) : undefined;
  } catch {
    return undefined;
  }
}

async function legacy(req, res, body) {
  const sessionId = req.headers["mcp-session-id"];
  if (sessionId !== undefined) {
    const transport = sessions.get(sessionId);
    return transport ? transport.handleRequest(req, res, body) : refuse(res, 404, "Session not found");
  }
  if (req.method === "POST" && isInitializeRequest(body)) {
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new InMemoryEventStore(),
      retryInterval: RETRY_INTERVAL_MS,
      onsessioninitialized: (id) => sessions.set(id, transport),
      onsessionclosed: (id) => sessions.delete(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await factory({ era: "legacy" }).connect(transport);
    return transport.handleRequest(req, res, body);
  }
  return refuse(res, 400, "Bad Request: Mcp-Session-Id header is required");
}

async function handle(req, res) {
  const body = req.method === "POST" ? await readJson(req) : undefined;
  const probe = await toWebRequest(req, body);
  return (await isLegacyRequest(probe, body)) ? legacy(req, res, body) : modern(req, res, body);
}

const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();

const port = Number(process.argv[2]);
createServer((req, res) => {
  if (!validateHost(req, res) || !validateOrigin(req, res)) return;
  if (new URL(req.url, `http://${HOST}`).pathname !== MCP_PATH) return refuse(res, 404, "not found");
  handle(req, res).catch((error) => {
    if (!res.headersSent) refuse(res, 500, String(error));
  });
}).listen(port, HOST);
