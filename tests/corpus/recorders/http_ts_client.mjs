// The corpus scenario as the npm TypeScript SDK Client over StreamableHTTPClientTransport.
//
//   cd /work/rec/npm-http && npm install --save-exact @modelcontextprotocol/sdk@1.32.2 zod@4.6.7
//   node /path/to/tests/corpus/recorders/http_ts_client.mjs URL     (require() resolves from the cwd)
//
// Expects the tools add, slow, ask_name, announce (http_fastmcp_server.py). Deliberate client
// errors: a fabricated tools/list cursor, an unknown tool, bad arguments, a call cancelled with an
// AbortSignal (the SDK POSTs notifications/cancelled), and a call still running when the client
// terminates the session (DELETE) without cancelling it.
import { createRequire } from 'node:module';

const require = createRequire(process.cwd() + '/');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { ElicitRequestSchema, ToolListChangedNotificationSchema, LoggingMessageNotificationSchema } =
  require('@modelcontextprotocol/sdk/types.js');

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const show = (label, value) => console.error(label, '->', JSON.stringify(value).slice(0, 200));
const attempt = async (label, promise) => {
  try { show(label, await promise); } catch (error) { console.error(label, '-> raised', String(error)); }
};

const client = new Client({ name: 'corpus-ts-client', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
client.setRequestHandler(ElicitRequestSchema, async request => {
  const properties = request.params.requestedSchema?.properties ?? {};
  return { action: 'accept', content: Object.fromEntries(Object.keys(properties).map(name => [name, 'Ada'])) };
});
let changed;
const listChanged = new Promise(resolve => { changed = resolve; });
client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed());
client.setNotificationHandler(LoggingMessageNotificationSchema, n => console.error('log:', n.params.data));

const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]));
await client.connect(transport);
const onprogress = () => {};
await client.listTools();
await attempt('fabricated cursor', client.listTools({ cursor: 'ZmFicmljYXRlZA==' }));
await attempt('add', client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }));
await attempt('unknown tool', client.callTool({ name: 'no_such_tool', arguments: {} }));
await attempt('bad arguments', client.callTool({ name: 'add', arguments: { a: 'two', b: 3 } }));
await Promise.all([  // two calls in flight at once, both with progress
  attempt('slow 3', client.callTool({ name: 'slow', arguments: { steps: 3, delay_ms: 150 } }, undefined, { onprogress })),
  attempt('slow 2', client.callTool({ name: 'slow', arguments: { steps: 2, delay_ms: 120 } }, undefined, { onprogress })),
]);
await attempt('elicitation', client.callTool({ name: 'ask_name', arguments: {} }));
const abort = new AbortController();
setTimeout(() => abort.abort('the user pressed stop'), 350);
await attempt('cancelled', client.callTool({ name: 'slow', arguments: { steps: 20, delay_ms: 100 } }, undefined,
  { signal: abort.signal, onprogress }));
await attempt('announce', client.callTool({ name: 'announce', arguments: {} }));
await Promise.race([listChanged, sleep(5000)]);
await client.listTools();
const abandoned = client.callTool({ name: 'slow', arguments: { steps: 30, delay_ms: 100 } }).catch(() => {});
await sleep(400);  // the call runs; the client ends the session without cancelling it
await transport.terminateSession();
await client.close();
await abandoned;
