// Record a stdio session: the npm TypeScript SDK's Client (StdioClientTransport) drives a server
// started behind `mcplint capture`, and makes the corpus scenario's deliberate client errors.
//
// Run from the repository root (npm packages in /work/rec/npm, Python servers in /work/rec/venv-*):
//   NODE_PATH=/work/rec/npm/node_modules node tests/corpus/recorders/ts_client.cjs time tests/corpus/ts-client--mcp-server-time.mcplog
//   NODE_PATH=/work/rec/npm/node_modules node tests/corpus/recorders/ts_client.cjs fastmcp tests/corpus/ts-client--fastmcp-server.mcplog
const types = require("@modelcontextprotocol/sdk/types.js");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const REC = "/work/rec";
const MCPLINT = "/work/venv/bin/mcplint";
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const TARGETS = {
  // mcp-server-time (PyPI) on the Python SDK 1.x; the client offers 2025-06-18 instead of its latest
  time: {
    offer: "2025-06-18",
    server: [`${REC}/venv-time/bin/mcp-server-time`, "--local-timezone", "UTC"],
    async run(client) {
      await step("get_current_time", () => client.callTool({ name: "get_current_time", arguments: { timezone: "Europe/Paris" } }));
      await step("convert_time", () => client.callTool({ name: "convert_time",
        arguments: { source_timezone: "Europe/Paris", time: "14:30", target_timezone: "Asia/Tokyo" } }));
      await step("unknown tool", () => client.callTool({ name: "get_weather", arguments: { city: "Paris" } }));
      await step("bad arguments: missing required", () => client.callTool({ name: "get_current_time", arguments: {} }));
      await step("bad arguments: wrong type", () => client.callTool({ name: "convert_time",
        arguments: { source_timezone: "Europe/Paris", time: 1430, target_timezone: "Asia/Tokyo" } }));
      await step("fabricated cursor", () => client.listTools({ cursor: "not-a-cursor" }));
    },
  },
  // a fastmcp (PyPI) server with a slow tool; the client's latest revision (2025-11-25)
  fastmcp: {
    server: [`${REC}/venv-fastmcp/bin/python`, "tests/corpus/recorders/fastmcp_slow_server.py"],
    async run(client) {
      await step("add", () => client.callTool({ name: "add", arguments: { a: 2, b: 3 } }));
      await step("prompts/list", () => client.listPrompts());
      await step("prompts/get", () => client.getPrompt({ name: "greeting", arguments: { name: "Ada" } }));
      await step("resources/list", () => client.listResources());
      await step("resources/read", () => client.readResource({ uri: "note://readme" }));
      await step("unknown tool", () => client.callTool({ name: "multiply", arguments: { a: 2, b: 3 } }));
      await step("bad arguments: wrong type", () => client.callTool({ name: "add", arguments: { a: "two", b: 3 } }));
      await step("bad arguments: missing required", () => client.callTool({ name: "add", arguments: { a: 1 } }));
      await step("fabricated cursor", () => client.listTools({ cursor: "not-a-cursor" }));
      // cancelled call: abort an in-flight slow call (the SDK sends notifications/cancelled)
      const controller = new AbortController();
      setTimeout(() => controller.abort("user pressed stop"), 2500);
      await step("cancelled call", () => client.callTool({ name: "sleep", arguments: { seconds: 8 } }, undefined,
        { signal: controller.signal, onprogress: (p) => console.error("  progress", JSON.stringify(p)) }));
      // abandoned call: start a slow call and close without cancelling it
      step("abandoned call", () => client.callTool({ name: "sleep", arguments: { seconds: 8 } }));
      await sleep(1500);
    },
  },
};

async function step(label, action) {
  try {
    const result = await action();
    console.error(`${label}: ok ${JSON.stringify(result).slice(0, 160)}`);
  } catch (err) {
    console.error(`${label}: ${err.name} ${String(err.message).slice(0, 160)}`);
  }
}

async function main() {
  const [name, out] = process.argv.slice(2);
  const target = TARGETS[name];
  if (target.offer) types.LATEST_PROTOCOL_VERSION = target.offer; // CommonJS build reads it per call
  const transport = new StdioClientTransport({
    command: MCPLINT, args: ["capture", "-o", out, "--", ...target.server], stderr: "inherit",
  });
  const client = new Client({ name: "corpus-ts-client", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  console.error("negotiated", client.getServerVersion(), transport._protocolVersion ?? "");
  await step("tools/list", () => client.listTools());
  await target.run(client);
  await client.close();
}

main().catch((err) => { console.error(err); process.exit(1); });
