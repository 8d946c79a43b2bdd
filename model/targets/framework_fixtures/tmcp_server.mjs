// The framework target "tmcp": Paolo Ricciuti's tmcp with @tmcp/transport-http over Streamable HTTP.
//
// Run as: node tmcp_server.mjs PORT (binds 127.0.0.1 only; run from the folder whose
// node_modules holds tmcp, @tmcp/transport-http, @tmcp/adapter-zod and @hono/node-server).
// Wired as tmcp's README wires an HTTP server: an McpServer with the zod adapter, an
// HttpTransport on /mcp with its default in-memory session managers, and a fetch-style
// Node listener (@hono/node-server's) in front of transport.respond. tmcp's handlers
// reach the server's own methods (log, progress, elicitation, message); it offers a
// tool no way to close its SSE connection, so test_reconnection is absent.
import { serve } from "@hono/node-server";
import { ZodJsonSchemaAdapter } from "@tmcp/adapter-zod";
import { HttpTransport } from "@tmcp/transport-http";
import { McpServer } from "tmcp";
import { z } from "zod";

const HOST = "127.0.0.1";
const STEP_MS = 50;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value) => ({ content: [{ type: "text", text: value }] });

const server = new McpServer(
  { name: "mcp-resume tmcp target", version: "1.0.0", description: "mcp-resume fixture server" },
  { adapter: new ZodJsonSchemaAdapter(), capabilities: { tools: {}, logging: {} } },
);

server.tool({ name: "test_tool_with_logging", description: "Send three log notifications, then answer." }, async () => {
  for (const step of [1, 2, 3]) {
    server.log("info", `logging step ${step}`);
    await sleep(STEP_MS);
  }
  return text("logged three messages");
});

server.tool({ name: "test_tool_with_progress", description: "Report progress three times, then answer." }, async () => {
  for (const step of [1, 2, 3]) {
    server.progress(step, 3, `step ${step}`);
    await sleep(STEP_MS);
  }
  return text("progress reported");
});

server.tool({ name: "test_sampling", description: "Ask the client for a completion." }, async () => {
  const result = await server.message({
    messages: [{ role: "user", content: { type: "text", text: "Say hello" } }],
    maxTokens: 32,
  });
  return text(result.content?.text ?? "sampled");
});

server.tool({ name: "test_elicitation", description: "Ask the client to fill a form." }, async () => {
  const result = await server.elicitation("Please answer", z.object({ answer: z.string() }));
  return text(`elicitation ${result.action}`);
});

const transport = new HttpTransport(server, { path: "/mcp" });
serve({
  fetch: async (request) => (await transport.respond(request)) ?? new Response(null, { status: 404 }),
  hostname: HOST,
  port: Number(process.argv[2]),
});
