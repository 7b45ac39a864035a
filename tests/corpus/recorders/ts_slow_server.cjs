// A small stdio MCP server built with the npm TypeScript SDK's McpServer: a quick tool, a slow
// tool (so that a call can be cancelled or abandoned), one prompt and one resource.
//
// Run (the recorders start it behind `mcplint capture`):
//   NODE_PATH=/work/rec/npm/node_modules node tests/corpus/recorders/ts_slow_server.cjs
// with `npm install --no-audit --no-fund @modelcontextprotocol/sdk@1.32.2 zod@4.6.7` in /work/rec/npm.
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { z } = require("zod");

const server = new McpServer({ name: "corpus-slow-ts", version: "1.0.0" });

server.registerTool("add", {
  description: "Add two numbers",
  inputSchema: { a: z.number(), b: z.number() },
}, async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }));

server.registerTool("sleep", {
  description: "Wait for the given number of seconds, reporting progress every second",
  inputSchema: { seconds: z.number().min(0).max(60) },
}, async ({ seconds }, extra) => {
  const token = extra._meta?.progressToken;
  for (let i = 1; i <= seconds; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (extra.signal.aborted) {
      return { content: [{ type: "text", text: `interrupted after ${i} s` }], isError: true };
    }
    if (token !== undefined) {
      await extra.sendNotification({ method: "notifications/progress",
        params: { progressToken: token, progress: i, total: seconds } });
    }
  }
  return { content: [{ type: "text", text: `slept ${seconds} s` }] };
});

server.registerPrompt("greeting", {
  description: "Greet someone",
  argsSchema: { name: z.string() },
}, ({ name }) => ({ messages: [{ role: "user", content: { type: "text", text: `Say hello to ${name}.` } }] }));

server.registerResource("readme", "note://readme", { mimeType: "text/plain", description: "A note" },
  async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: "Nothing to see here." }] }));

server.connect(new StdioServerTransport());
