// Preloaded into a node server (node --require this-file server.mjs ...) by
// model/targets/process.py: the server exits when the process that started it is
// gone, even after a SIGKILL. Its stdin is a pipe whose write end that process
// keeps open and never writes: the end of stdin means the parent died. The parent
// pid (MCP_RESUME_PARENT_PID) is also polled, every half second.
"use strict";

const parent = Number(process.env.MCP_RESUME_PARENT_PID || process.ppid);
if (process.ppid !== parent) process.exit(0);
process.stdin.on("end", () => process.exit(0));
process.stdin.on("error", () => process.exit(0));
process.stdin.resume();
setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
}, 500).unref();
