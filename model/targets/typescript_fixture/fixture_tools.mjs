// The fixture tools mcp-resume verify drives, for a server built with the official MCP
// TypeScript SDK: addFixtureTools(server) registers them on an McpServer.
//
//   import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
//   import { addFixtureTools } from "./fixture_tools.mjs";
//   const server = new McpServer({ name: "demo", version: "1.0.0" }, { capabilities: { logging: {} } });
//   addFixtureTools(server);
//
// docs/fixtures.md defines each tool (generated from model/verify/fixture_tools.py, which
// a test holds these constants to). Give the transport an eventStore so that streams have
// event ids to resume from (MCP B22, D8).
import { z } from "zod";

export const NOTIFICATIONS = 3;
export const STEP_MS = 50;
export const RECONNECT_PAUSE_MS = 300;
export const ANSWER_TIMEOUT_MS = 60000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value) => ({ content: [{ type: "text", text: value }] });
const steps = () => Array.from({ length: NOTIFICATIONS }, (_, i) => i + 1);

export function addFixtureTools(server) {
  const log = (extra, data) =>
    extra.sendNotification({ method: "notifications/message", params: { level: "info", data } });

  server.registerTool("test_tool_with_logging", { description: "Send three log notifications, then answer." }, async (extra) => {
    for (const step of steps()) {
      await log(extra, `logging step ${step}`);
      await sleep(STEP_MS);
    }
    return text("logged three messages");
  });
  server.registerTool("test_tool_with_progress", { description: "Report progress three times, then answer." }, async (extra) => {
    const token = extra._meta?.progressToken;
    for (const step of steps()) {
      if (token !== undefined) {
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: step, total: NOTIFICATIONS, message: `step ${step}` },
        });
      }
      await sleep(STEP_MS);
    }
    return text("progress reported");
  });
  server.registerTool(
    "test_elicitation",
    { description: "Ask the client to fill a one-field form.", inputSchema: { message: z.string().optional() } },
    async ({ message }, extra) => {
      const result = await server.server.elicitInput(
        {
          message: message ?? "Please answer",
          requestedSchema: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] },
        },
        { relatedRequestId: extra.requestId, timeout: ANSWER_TIMEOUT_MS },
      );
      return text(`elicitation ${result.action}`);
    },
  );
  server.registerTool(
    "test_sampling",
    { description: "Ask the client for a completion and return its text.", inputSchema: { prompt: z.string().optional() } },
    async ({ prompt }, extra) => {
      const result = await server.server.createMessage(
        { messages: [{ role: "user", content: { type: "text", text: prompt ?? "Say hello" } }], maxTokens: 32 },
        { relatedRequestId: extra.requestId, timeout: ANSWER_TIMEOUT_MS },
      );
      return text(result.content?.text ?? "sampled");
    },
  );
  server.registerTool("test_reconnection", { description: "Close this call's SSE connection mid-call, then finish." }, async (extra) => {
    await log(extra, "before the connection closes");
    await sleep(STEP_MS);
    extra.closeSSEStream?.();
    await sleep(RECONNECT_PAUSE_MS);
    await log(extra, "after the connection closed");
    return text("reconnection test finished");
  });
  return server;
}
