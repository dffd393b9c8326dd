// The official MCP TypeScript SDK client launches code-sandbox-mcp over stdio, as Claude
// Desktop, VS Code or Cursor would, and uses both tools. The SDK also checks every
// structuredContent against the tool's outputSchema.
//
// CSM_SERVER_BINARY: the server to launch; CSM_TEST_ENGINE: podman or docker;
// CSM_TEST_ISOLATION: gvisor to run every sandbox under gVisor (the default: standard);
// CSM_TEST_EGRESS: the server's --egress (the default: open, through its proxy; none: no network);
// CSM_TEST_POOL: the server's --pool (unset: its default warm pool; 0: every sandbox started cold).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import os from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';

const binary = process.env.CSM_SERVER_BINARY;
const engine = process.env.CSM_TEST_ENGINE ?? 'podman';
const isolation = process.env.CSM_TEST_ISOLATION || 'standard';
const egress = process.env.CSM_TEST_EGRESS || 'open';
const pool = process.env.CSM_TEST_POOL ? ['--pool', process.env.CSM_TEST_POOL] : [];
assert.ok(binary, 'CSM_SERVER_BINARY must name the code-sandbox-mcp binary');

let client;
let stderr = '';
// A service on this machine's loopback, which sandboxes reach through the egress proxy only
// because the server is told to allow it.
let service;

before(async () => {
  service = http.createServer((request, response) => response.end(`hello from ${request.url}`));
  await new Promise((resolve) => service.listen(0, '127.0.0.1', resolve));
  const transport = new StdioClientTransport({
    command: binary,
    args: ['--engine', engine, '--isolation', isolation, '--egress', egress, ...pool,
      '--allow-host', `host.containers.internal:${service.address().port}`],
    env: getDefaultEnvironment(),
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk) => { stderr += chunk; });
  client = new Client({ name: 'code-sandbox-e2e', version: '1.0.0' });
  await client.connect(transport);
});

after(async () => {
  await client?.close();
  service?.close();
});

const text = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');

test('the server identifies itself and negotiates the SDK\'s protocol version', () => {
  assert.equal(client.getServerVersion().name, 'code-sandbox');
  assert.ok(client.getServerCapabilities().tools, 'tools capability');
});

test('lists run_python_code and run_js_code, each once, with schemas, and the session tools', async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ['run_python_code', 'run_js_code', 'list_sessions', 'end_session']);
  for (const tool of tools.slice(0, 2)) {
    assert.ok(tool.description.length > 50, `${tool.name} has a description`);
    assert.equal(tool.inputSchema.type, 'object');
    assert.deepEqual(tool.inputSchema.required, ['code']);
    assert.equal(tool.inputSchema.properties.session.type, 'string', `${tool.name} takes a session`);
    assert.equal(tool.outputSchema.type, 'object');
  }
  assert.match(tools[0].description, /numpy/);
});

test('runs print(6*7) in Python', async () => {
  const result = await client.callTool({ name: 'run_python_code', arguments: { code: 'print(6*7)' } });
  assert.equal(result.isError, false, stderr);
  assert.equal(text(result), '42\n');
  assert.equal(result.structuredContent.stdout, '42\n');
  assert.equal(result.structuredContent.exit_code, 0);
  assert.equal(result.structuredContent.timed_out, false);
});

test('runs console.log(6*7) in JavaScript', async () => {
  const result = await client.callTool({ name: 'run_js_code', arguments: { code: 'console.log(6*7)' } });
  assert.equal(result.isError, false, stderr);
  assert.equal(text(result), '42\n');
  assert.equal(result.structuredContent.stdout, '42\n');
});

test('the reference\'s tool name run_javascript_code still works', async () => {
  const result = await client.callTool({ name: 'run_javascript_code', arguments: { code: 'console.log("alias")' } });
  assert.equal(result.structuredContent.stdout, 'alias\n');
});

test('a failing program is reported truthfully: stderr, exit code, isError', async () => {
  const result = await client.callTool({
    name: 'run_python_code',
    arguments: { code: 'import sys\nprint("partial")\nraise SystemExit("bad input")' },
  });
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent.exit_code, 1);
  assert.equal(result.structuredContent.stdout, 'partial\n');
  assert.match(result.structuredContent.stderr, /bad input/);
  assert.match(text(result), /\[stderr\][\s\S]*bad input[\s\S]*\[exit code: 1\]/);
});

test('overlapping calls both complete', async () => {
  const [slow, fast] = await Promise.all([
    client.callTool({ name: 'run_python_code', arguments: { code: 'import time\ntime.sleep(1.5)\nprint("slow")' } }),
    client.callTool({ name: 'run_js_code', arguments: { code: 'console.log("fast")' } }),
  ]);
  assert.equal(slow.structuredContent.stdout, 'slow\n');
  assert.equal(fast.structuredContent.stdout, 'fast\n');
});

test(`the sandbox runs on the kernel of its isolation tier (${isolation}), and reaches an allowed host through the proxy`, { skip: egress === 'none' }, async () => {
  const port = service.address().port;
  const result = await client.callTool({
    name: 'run_python_code',
    arguments: {
      code: 'import platform, urllib.request\nprint(platform.release())\n' +
        `print(urllib.request.urlopen("http://host.containers.internal:${port}/sandbox", timeout=20).read().decode())\n`,
    },
  });
  assert.equal(result.isError, false, JSON.stringify(result).slice(0, 2000));
  const [kernel, answer] = result.structuredContent.stdout.trim().split('\n');
  // gVisor's kernel says 4.4.0 whatever the host runs; the standard tier shares this machine's.
  assert.equal(kernel, isolation === 'gvisor' ? '4.4.0' : os.release());
  assert.equal(answer, 'hello from /sandbox');
});

test('with --egress none the sandbox has no network: not even a host --allow-host names', { skip: egress !== 'none' }, async () => {
  const port = service.address().port;
  const result = await client.callTool({
    name: 'run_python_code',
    arguments: {
      code: 'import os, socket, urllib.request\n' +
        'print(sorted(name for _, name in socket.if_nameindex()))\n' +
        'print(os.environ.get("HTTP_PROXY"))\n' +
        'try:\n' +
        `    urllib.request.urlopen("http://host.containers.internal:${port}/sandbox", timeout=5)\n` +
        '    print("reached")\n' +
        'except OSError as error:\n' +
        '    print("unreachable:", type(error).__name__)\n',
    },
  });
  assert.equal(result.isError, false, JSON.stringify(result).slice(0, 2000));
  const [interfaces, proxy, outcome] = result.structuredContent.stdout.trim().split('\n');
  assert.equal(interfaces, "['lo']");
  // No proxy is named to the program: unreachable because there is no way out, not a proxy down.
  assert.equal(proxy, 'None');
  assert.match(outcome, /^unreachable: /);
});

test('a CSV in, a chart out: shown as an image, linked, and read back with resources/read', async () => {
  assert.ok(client.getServerCapabilities().resources, 'the server declares resources');
  const result = await client.callTool({
    name: 'run_python_code',
    arguments: {
      code: 'import pandas as pd\nimport matplotlib\nmatplotlib.use("Agg")\nimport matplotlib.pyplot as plt\n' +
        'df = pd.read_csv("sales.csv")\nprint("total", df.amount.sum())\n' +
        'df.plot.bar(x="region", y="amount")\nplt.savefig("/sandbox/out/sales.png")\nplt.close()\n',
      files: [{ path: 'sales.csv', content: 'region,amount\nnorth,3\nsouth,4\n' }],
    },
  });
  assert.equal(result.isError, false, JSON.stringify(result).slice(0, 2000));
  assert.match(text(result), /total 7/);
  const image = result.content.find((c) => c.type === 'image');
  assert.ok(image, 'the chart is image content');
  assert.equal(image.mimeType, 'image/png');
  const link = result.content.find((c) => c.type === 'resource_link');
  assert.ok(link, 'the chart is linked as a resource');
  assert.match(link.uri, /^code-sandbox:\/\/runs\/[0-9a-f-]{36}\/out\/sales\.png$/);
  assert.equal(result.structuredContent.files[0].uri, link.uri);
  const read = await client.readResource({ uri: link.uri });
  assert.equal(read.contents[0].mimeType, 'image/png');
  assert.equal(read.contents[0].blob, image.data);
});

test('a session keeps its state between calls, like notebook cells', async () => {
  const cell = (code) => client.callTool({ name: 'run_python_code', arguments: { code, session: 'e2e' } });
  assert.equal((await cell('import math\nx = 41')).isError, false, stderr);
  const answer = await cell('x + 1');
  assert.equal(answer.structuredContent.stdout, '42\n');
  const failed = await cell('1 / 0');
  assert.equal(failed.isError, true);
  assert.match(text(failed), /File "<cell 3>", line 1/);
  assert.equal((await cell('round(math.pi, 2)')).structuredContent.stdout, '3.14\n');
  // The client cancels a running cell: it is interrupted, and the session keeps its state.
  const abort = new AbortController();
  const stuck = client.callTool(
    { name: 'run_python_code', arguments: { code: 'import time\nwhile True:\n    time.sleep(0.05)\n', session: 'e2e' } },
    undefined,
    { signal: abort.signal },
  ).then(() => 'resolved', () => 'rejected');
  await new Promise((resolve) => setTimeout(resolve, 1000));
  abort.abort('e2e: cancelled by the test');
  assert.equal(await stuck, 'rejected');
  const after = await cell('x + 1');
  assert.equal(after.isError, false, text(after));
  assert.equal(after.structuredContent.stdout, '42\n');
  assert.match(text(await client.callTool({ name: 'list_sessions', arguments: {} })), /e2e \(Python\): 6 cell/);
  const ended = await client.callTool({ name: 'end_session', arguments: { session: 'e2e' } });
  assert.equal(ended.isError, false);
  assert.equal(text(await client.callTool({ name: 'list_sessions', arguments: {} })), 'No live sessions.');
});

test('a JavaScript session keeps its state too, top-level await included', async () => {
  const cell = (code) => client.callTool({ name: 'run_js_code', arguments: { code, session: 'e2e-js' } });
  assert.equal((await cell('const base = await Promise.resolve(40);')).isError, false, stderr);
  assert.equal((await cell('base + 2')).structuredContent.stdout, '42\n');
  const failed = await cell('null.x');
  assert.equal(failed.isError, true);
  assert.match(text(failed), /at <cell-3>:1:6/);
  assert.equal((await cell('base')).structuredContent.stdout, '40\n');
  const ended = await client.callTool({ name: 'end_session', arguments: { session: 'e2e-js' } });
  assert.equal(ended.isError, false);
});

test('an unknown tool is a protocol error', async () => {
  await assert.rejects(client.callTool({ name: 'run_cobol_code', arguments: {} }), /Unknown tool/);
});
