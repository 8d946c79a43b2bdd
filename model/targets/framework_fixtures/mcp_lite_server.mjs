// The framework target "mcp-lite": Fiberplane's mcp-lite over Streamable HTTP, on Hono.
//
// Run as: node mcp_lite_server.mjs PORT (binds 127.0.0.1 only; run from the folder whose
// node_modules holds mcp-lite, hono and @hono/node-server).
// Wired as mcp-lite's README wires a single server: an InMemorySessionAdapter (its
// event buffer is what resumption replays from) and an InMemoryClientRequestAdapter
// for server requests. mcp-lite gives a tool handler no way to send a log
// notification or to close its connection, so test_tool_with_logging and
// test_reconnection are absent; the other conformance fixture tools (docs/design.md §7) are here.
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { InMemoryClientRequestAdapter, InMemorySessionAdapter, McpServer, StreamableHttpTransport } from "mcp-lite";
import { z } from "zod";

const HOST = "127.0.0.1";
const STEP_MS = 50;
const REQUEST_TIMEOUT_MS = 120000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value) => ({ content: [{ type: "text", text: value }] });
const noArguments = z.object({});

const mcp = new McpServer({ name: "mcp-resume mcp-lite target", version: "1.0.0", schemaAdapter: (schema) => z.toJSONSchema(schema) });

mcp.tool("test_tool_with_progress", {
  description: "Report progress three times, then answer.",
  inputSchema: noArguments,
  handler: async (_args, ctx) => {
    for (const step of [1, 2, 3]) {
      await ctx.progress?.({ progress: step, total: 3, message: `step ${step}` });
      await sleep(STEP_MS);
    }
    return text("progress reported");
  },
});

mcp.tool("test_sampling", {
  description: "Ask the client for a completion.",
  inputSchema: noArguments,
  handler: async (_args, ctx) => {
    const result = await ctx.sample({ prompt: "Say hello", maxTokens: 32 }, { timeout_ms: REQUEST_TIMEOUT_MS });
    return text(result.content?.text ?? "sampled");
  },
});

mcp.tool("test_elicitation", {
  description: "Ask the client to fill a form.",
  inputSchema: noArguments,
  handler: async (_args, ctx) => {
    const result = await ctx.elicit(
      { message: "Please answer", schema: z.object({ answer: z.string() }) },
      { timeout_ms: REQUEST_TIMEOUT_MS },
    );
    return text(`elicitation ${result.action}`);
  },
});

const transport = new StreamableHttpTransport({
  sessionAdapter: new InMemorySessionAdapter({ maxEventBufferSize: 1024 }),
  clientRequestAdapter: new InMemoryClientRequestAdapter({ defaultTimeoutMs: REQUEST_TIMEOUT_MS }),
});
const handle = transport.bind(mcp);
const app = new Hono();
app.all("/mcp", (c) => handle(c.req.raw));

serve({ fetch: app.fetch, hostname: HOST, port: Number(process.argv[2]) });
