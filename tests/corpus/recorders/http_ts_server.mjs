// A stateful Streamable HTTP MCP server built with the npm TypeScript SDK (McpServer +
// StreamableHTTPServerTransport on express, as in the SDK's own examples), for the HTTP corpus.
//
// Run it from the folder where the packages are installed (require() resolves from the cwd):
//   cd /work/rec/npm-http && npm install --save-exact @modelcontextprotocol/sdk@1.32.2 zod@4.6.7 express@5.3.0
//   node /path/to/tests/corpus/recorders/http_ts_server.mjs PORT          # SSE answers
//   node /path/to/tests/corpus/recorders/http_ts_server.mjs PORT --json   # enableJsonResponse
// Tools: add, slow (progress, honours cancellation), ask_name (elicitation during the call),
// announce (300 ms after answering, registers a tool: tools/list_changed + a log message on the
// standalone GET stream). With --json, `slow` also logs its start with server.sendLoggingMessage,
// as the SDK's jsonResponseStreamableHttp example does (a JSON answer has no stream for it).
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(process.cwd() + '/');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { createMcpExpressApp } = require('@modelcontextprotocol/sdk/server/express.js');
const { isInitializeRequest, ElicitResultSchema } = require('@modelcontextprotocol/sdk/types.js');
const z = require('zod');

const port = Number(process.argv[2] ?? 3000);
const json = process.argv.includes('--json');
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const text = t => ({ content: [{ type: 'text', text: t }] });

function build() {
  const server = new McpServer({ name: 'corpus-ts-server', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool('add', { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => text(String(a + b)));
  server.registerTool('slow', {
    description: 'Count slowly, reporting progress',
    inputSchema: { steps: z.number().int(), delay_ms: z.number().int() },
  }, async ({ steps, delay_ms }, extra) => {
    if (json) await server.sendLoggingMessage({ level: 'info', data: `slow: counting to ${steps}` }, extra.sessionId);
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      if (extra.signal.aborted) return text(`stopped at ${i - 1}`);
      await sleep(delay_ms);
      if (token !== undefined) {
        await extra.sendNotification({ method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: steps } });
      }
    }
    return text(`counted to ${steps}`);
  });
  server.registerTool('ask_name', { description: 'Ask the user for a name, then greet' }, async (extra) => {
    const answer = await extra.sendRequest({ method: 'elicitation/create', params: {
      mode: 'form', message: 'Who are you?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    } }, ElicitResultSchema);
    return text(answer.action === 'accept' ? `Hello, ${answer.content.name}!` : `no name (${answer.action})`);
  });
  server.registerTool('announce', { description: 'Add a tool shortly after answering' }, async () => {
    setTimeout(async () => {
      server.registerTool('extra', { description: 'Added later' }, async () => text('extra'));
      await server.sendLoggingMessage({ level: 'info', data: 'tool "extra" added' });
    }, 300);
    return text('a new tool will appear');
  });
  return server;
}

const app = createMcpExpressApp();
const sessions = new Map();

app.post('/mcp', async (req, res) => {
  const id = req.headers['mcp-session-id'];
  let transport = id ? sessions.get(id) : undefined;
  if (!transport && !id && isInitializeRequest(req.body)) {
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(), enableJsonResponse: json,
      onsessioninitialized: sid => sessions.set(sid, transport),
    });
    transport.onclose = () => sessions.delete(transport.sessionId);
    await build().connect(transport);
  } else if (!transport) {
    res.status(id ? 404 : 400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'No valid session' }, id: null });
    return;
  }
  await transport.handleRequest(req, res, req.body);
});

const other = async (req, res) => {
  const transport = sessions.get(req.headers['mcp-session-id']);
  if (!transport) { res.status(400).send('Missing or unknown session id'); return; }
  await transport.handleRequest(req, res);
};
app.get('/mcp', other);
app.delete('/mcp', other);
app.listen(port, '127.0.0.1', () => console.error(`listening on 127.0.0.1:${port} (${json ? 'JSON' : 'SSE'} answers)`));
