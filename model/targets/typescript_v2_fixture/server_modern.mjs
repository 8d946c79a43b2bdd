// The embedded target "typescript-sdk-v2": the official MCP TypeScript SDK v2
// (@modelcontextprotocol/server) serving protocol revision 2026-07-28 only.
//
// Run as: node server_modern.mjs PORT (binds 127.0.0.1 only; the folder it runs from holds
// node_modules with @modelcontextprotocol/server, @modelcontextprotocol/node and zod).
// The SDK's HTTP entry, configured as its documentation says for a modern-only endpoint:
// createMcpHandler(factory, { legacy: "reject" }), one fresh McpServer per HTTP request from
// the factory, mounted on node:http with toNodeHandler from @modelcontextprotocol/node behind
// its localhost Host/Origin guards (the SDK's README for a plain node:http server).
//
// What the SDK answers (createMcpHandler.ts, inboundClassification.ts): a POST carrying the
// per-request _meta envelope (io.modelcontextprotocol/protocolVersion = 2026-07-28 and
// io.modelcontextprotocol/clientCapabilities) with the MCP-Protocol-Version and Mcp-Method
// headers (Mcp-Name for tools/call, prompts/get, resources/read) is served: a JSON body, or an
// SSE stream once the handler emits a notification before its result. Anything of the session
// era is refused: initialize or an envelope-less request 400 with -32022 (supported:
// ["2026-07-28"]), GET and DELETE 405 (Allow: POST), an envelope-less notification 202.
// No Mcp-Session-Id is ever issued. Any other path: 404.
import { createServer } from "node:http";
import { McpServer, createMcpHandler } from "@modelcontextprotocol/server";
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from "@modelcontextprotocol/node";
import { addFixtureTools } from "./fixture_tools.mjs";

const HOST = "127.0.0.1";
const MCP_PATH = "/mcp";

const factory = ({ era }) =>
  addFixtureTools(new McpServer({ name: "mcp-resume typescript-sdk-v2 target", version: "1.0.0" }, { capabilities: { logging: {} } }), era);
const serve = toNodeHandler(createMcpHandler(factory, { legacy: "reject" }));
const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();

const port = Number(process.argv[2]);
createServer((req, res) => {
  if (!validateHost(req, res) || !validateOrigin(req, res)) return;
  if (new URL(req.url, `http://${HOST}`).pathname !== MCP_PATH) {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "not found" }, id: null }));
    return;
  }
  serve(req, res);
}).listen(port, HOST);
