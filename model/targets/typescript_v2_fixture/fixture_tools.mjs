// The fixture tools mcp-resume verify drives, for a server built with the official MCP
// TypeScript SDK v2 (@modelcontextprotocol/server 2.x): addFixtureTools(server, era)
// registers them on an McpServer made by a createMcpHandler factory.
//
//   import { McpServer, createMcpHandler } from "@modelcontextprotocol/server";
//   import { addFixtureTools } from "./fixture_tools.mjs";
//   const factory = ({ era }) =>
//     addFixtureTools(new McpServer({ name: "demo", version: "1.0.0" }, { capabilities: { logging: {} } }), era);
//   const handler = createMcpHandler(factory, { legacy: "reject" });
//
// `era` is the McpRequestContext era the factory is called for: "modern" (2026-07-28,
// one instance per HTTP request) or "legacy" (2025-11-25 and earlier, one instance per
// session). Tools, by era:
//
// - both eras: test_simple_text (answers one text block), test_tool_with_logging (three
//   notifications/message through ctx.mcpReq.log, then the answer), test_tool_with_progress
//   (three notifications/progress when the call's _meta carries a progressToken);
// - "legacy" only: test_sampling, test_elicitation (a server request on the call's own POST
//   stream, relatedRequestId = the call's id, waiting ANSWER_TIMEOUT_MS ms for the answer)
//   and test_reconnection (closes the call's SSE connection mid-call, ctx.http.closeSSE,
//   which the SDK offers only on a transport with an eventStore). 2026-07-28 has no server
//   requests on a response stream (the SDK's ctx.mcpReq.elicitInput / requestSampling throw
//   on a modern request) and no resumable streams, so a modern instance does not list them.
//
// Logging under 2026-07-28: ctx.mcpReq.log sends nothing unless the request's _meta carries
// "io.modelcontextprotocol/logLevel" (the per-request opt-in that replaced logging/setLevel;
// @modelcontextprotocol/server src/server/server.ts buildContext, log).
// Times are milliseconds; the counts and pauses are those of docs/fixtures.md.
import * as z from "zod";

export const NOTIFICATIONS = 3;
export const STEP_MS = 50;
export const RECONNECT_PAUSE_MS = 300;
export const ANSWER_TIMEOUT_MS = 60000;
export const MODERN_TOOLS = ["test_simple_text", "test_tool_with_logging", "test_tool_with_progress"];
export const LEGACY_TOOLS = [...MODERN_TOOLS, "test_sampling", "test_elicitation", "test_reconnection"];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value) => ({ content: [{ type: "text", text: value }] });
const steps = () => Array.from({ length: NOTIFICATIONS }, (_, i) => i + 1);

export function addFixtureTools(server, era = "modern") {
  server.registerTool("test_simple_text", { description: "Answer one text block." }, async () =>
    text("This is a simple text response for testing."),
  );
  server.registerTool("test_tool_with_logging", { description: "Send three log notifications, then answer." }, async (ctx) => {
    for (const step of steps()) {
      await ctx.mcpReq.log("info", `logging step ${step}`);
      await sleep(STEP_MS);
    }
    return text("logged three messages");
  });
  server.registerTool("test_tool_with_progress", { description: "Report progress three times, then answer." }, async (ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    for (const step of steps()) {
      if (token !== undefined) {
        await ctx.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken: token, progress: step, total: NOTIFICATIONS, message: `step ${step}` },
        });
      }
      await sleep(STEP_MS);
    }
    return text("progress reported");
  });
  if (era !== "legacy") return server;

  server.registerTool(
    "test_elicitation",
    { description: "Ask the client to fill a one-field form.", inputSchema: z.object({ message: z.string().optional() }) },
    async ({ message }, ctx) => {
      const result = await ctx.mcpReq.elicitInput(
        {
          message: message ?? "Please answer",
          requestedSchema: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] },
        },
        { relatedRequestId: ctx.mcpReq.id, timeout: ANSWER_TIMEOUT_MS },
      );
      return text(`elicitation ${result.action}`);
    },
  );
  server.registerTool(
    "test_sampling",
    { description: "Ask the client for a completion and return its text.", inputSchema: z.object({ prompt: z.string().optional() }) },
    async ({ prompt }, ctx) => {
      const result = await ctx.mcpReq.requestSampling(
        { messages: [{ role: "user", content: { type: "text", text: prompt ?? "Say hello" } }], maxTokens: 32 },
        { relatedRequestId: ctx.mcpReq.id, timeout: ANSWER_TIMEOUT_MS },
      );
      return text(result.content?.text ?? "sampled");
    },
  );
  server.registerTool("test_reconnection", { description: "Close this call's SSE connection mid-call, then finish." }, async (ctx) => {
    await ctx.mcpReq.log("info", "before the connection closes");
    await sleep(STEP_MS);
    ctx.http?.closeSSE?.();
    await sleep(RECONNECT_PAUSE_MS);
    await ctx.mcpReq.log("info", "after the connection closed");
    return text("reconnection test finished");
  });
  return server;
}
