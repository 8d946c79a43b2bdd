// The framework target "fastmcp-typescript": punkpeye's FastMCP (npm "fastmcp") over Streamable HTTP.
//
// Run as: node fastmcp_typescript_server.mjs PORT (binds 127.0.0.1 only; run from the folder
// whose node_modules holds fastmcp). Started as FastMCP's README starts an HTTP server:
// server.start({ transportType: "httpStream", httpStream: { port, host, endpoint } }); FastMCP
// (through mcp-proxy) then gives each session the SDK's transport and an in-memory event
// store of its own. A tool's context can log, report progress and elicit; sampling is a
// method of the FastMCP session, found here by the call's session id, as a user would.
// FastMCP offers a tool no way to close its SSE connection: test_reconnection is absent.
import { FastMCP } from "fastmcp";
import { z } from "zod";

const HOST = "127.0.0.1";
const STEP_MS = 50;
const REQUEST_TIMEOUT_MS = 120000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const noArguments = z.object({});

const server = new FastMCP({ name: "mcp-resume fastmcp-typescript target", version: "1.0.0" });

server.addTool({
  name: "test_tool_with_logging",
  description: "Send three log notifications, then answer.",
  parameters: noArguments,
  execute: async (_args, context) => {
    for (const step of [1, 2, 3]) {
      context.log.info(`logging step ${step}`);
      await sleep(STEP_MS);
    }
    return "logged three messages";
  },
});

server.addTool({
  name: "test_tool_with_progress",
  description: "Report progress three times, then answer.",
  parameters: noArguments,
  execute: async (_args, context) => {
    for (const step of [1, 2, 3]) {
      await context.reportProgress({ progress: step, total: 3 });
      await sleep(STEP_MS);
    }
    return "progress reported";
  },
});

server.addTool({
  name: "test_sampling",
  description: "Ask the client for a completion.",
  parameters: noArguments,
  execute: async (_args, context) => {
    const session = server.sessions.find((candidate) => candidate.sessionId === context.sessionId);
    const result = await session.requestSampling(
      { messages: [{ role: "user", content: { type: "text", text: "Say hello" } }], maxTokens: 32 },
      { timeout: REQUEST_TIMEOUT_MS },
    );
    return result.content?.text ?? "sampled";
  },
});

server.addTool({
  name: "test_elicitation",
  description: "Ask the client to fill a form.",
  parameters: noArguments,
  execute: async (_args, context) => {
    const result = await context.elicit(
      { message: "Please answer", requestedSchema: { type: "object", properties: { answer: { type: "string" } } } },
      { timeout: REQUEST_TIMEOUT_MS },
    );
    return `elicitation ${result.action}`;
  },
});

server.start({ transportType: "httpStream", httpStream: { port: Number(process.argv[2]), host: HOST, endpoint: "/mcp" } });
