// The official MCP TypeScript SDK client talks to code-sandbox-mcp over Streamable HTTP, as a
// remote-capable client would: sessions, both tools, progress during a long run, cancellation,
// DELETE of a session and two clients at once. The test starts the server itself
// (`--transport http --port 0`, with a data folder of its own) and reads the URL from its stderr
// and the token the server made from that folder. A client without the token is refused; and
// `install-client --http` writes client configurations (Cursor, VS Code) whose url and headers
// the SDK client uses as they are.
//
// CSM_SERVER_BINARY: the server to launch; CSM_TEST_ENGINE: podman or docker.
//
// Finding a call's container: every container of the server carries the label
// code-sandbox.pid=<server pid>, but so do the warm pool's idle containers, which run the same
// interpreter. So a long call first renames its own process (/proc/self/comm, allowed for any
// user) to a marker unique to the call, and the test looks for that marker with `ENGINE top`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const run = promisify(execFile);
const binary = process.env.CSM_SERVER_BINARY;
const engine = process.env.CSM_TEST_ENGINE ?? 'podman';
assert.ok(binary, 'CSM_SERVER_BINARY must name the code-sandbox-mcp binary');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let server;          // the spawned code-sandbox-mcp
let serverExit;      // resolves with {code, signal} when it exits
let serverUrl;       // http://127.0.0.1:PORT/mcp
let token;           // the token the server made in its data folder
let stderr = '';
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'csm-e2e-http-'));
const dataDir = path.join(scratch, 'data');
let client;          // the main client, connected in before()
let transport;
const extraClients = [];

// ---- the server process --------------------------------------------------------------------

function startServer() {
  const env = { ...process.env, CODE_SANDBOX_DATA_DIR: dataDir };
  delete env.CODE_SANDBOX_AUTH_TOKEN;
  server = spawn(binary, ['--transport', 'http', '--port', '0', '--engine', engine], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env,
  });
  serverExit = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "serving MCP on" line within 30 s; stderr:\n${stderr}`)), 30_000);
    server.stderr.setEncoding('utf8');
    server.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = /serving MCP on (http:\/\/\S+)/.exec(stderr);
      if (match && !serverUrl) {
        serverUrl = match[1];
        clearTimeout(timer);
        resolve();
      }
    });
    server.once('error', (error) => { clearTimeout(timer); reject(error); });
    serverExit.then(({ code, signal }) => {
      clearTimeout(timer);
      if (!serverUrl) reject(new Error(`the server exited (code ${code}, signal ${signal}) before listening; stderr:\n${stderr}`));
    });
  });
}

const serverRunning = () => server && server.exitCode === null && server.signalCode === null;

async function stopServer() {
  if (!serverRunning()) return;
  server.kill('SIGTERM');
  const exited = await Promise.race([serverExit.then(() => true), sleep(10_000).then(() => false)]);
  if (!exited) {
    server.kill('SIGKILL');
    await serverExit;
  }
}

// ---- the container engine ------------------------------------------------------------------

// Names of the server's containers: running ones, or all (`ps -a`).
async function containers({ all = false } = {}) {
  const args = ['ps', ...(all ? ['-a'] : []), '--filter', `label=code-sandbox.pid=${server.pid}`, '--format', '{{.Names}}'];
  const { stdout } = await run(engine, args);
  return stdout.split('\n').map((line) => line.trim()).filter(Boolean);
}

// The command names of a container's processes, or null if it is gone.
async function processNames(name) {
  const args = engine === 'docker' ? ['top', name, '-eo', 'pid,comm'] : ['top', name, 'pid', 'comm'];
  try {
    const { stdout } = await run(engine, args);
    return stdout.split('\n').slice(1).map((line) => line.trim().split(/\s+/).slice(1).join(' ')).filter(Boolean);
  } catch {
    return null;
  }
}

async function poll(what, check, { timeoutMs, intervalMs = 250 }) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

// The running container whose program renamed itself to `marker`.
function findCallContainer(marker) {
  return poll(`the container of the call marked ${marker}`, async () => {
    for (const name of await containers()) {
      const names = await processNames(name);
      if (names?.includes(marker)) return name;
    }
    return null;
  }, { timeoutMs: 30_000 });
}

// A Python program that marks its process (comm is at most 15 characters) and sleeps.
function markedSleep(seconds) {
  const marker = `csm-${randomBytes(4).toString('hex')}`;
  const code = `open("/proc/self/comm", "w").write("${marker}")\nimport time; time.sleep(${seconds})\nprint("woke")`;
  return { marker, code };
}

// Waits until `name` is no longer running, then until the engine no longer knows it at all.
async function assertContainerGone(name, { runningWithinMs = 10_000, removedWithinMs = 20_000 } = {}) {
  const start = Date.now();
  await poll(`${name} to stop running`, async () => !(await containers()).includes(name), { timeoutMs: runningWithinMs });
  const stoppedAfter = Date.now() - start;
  await poll(`${name} to be removed`, async () => !(await containers({ all: true })).includes(name),
    { timeoutMs: removedWithinMs });
  return { stoppedAfter, removedAfter: Date.now() - start };
}

// ---- clients -------------------------------------------------------------------------------

async function connectClient(name, { url = serverUrl, headers = { Authorization: `Bearer ${token}` } } = {}) {
  const t = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const c = new Client({ name, version: '1.0.0' });
  await c.connect(t);
  return { client: c, transport: t };
}

// The SDK's StreamableHTTPError carries the HTTP status as `code`.
const refusedWith401 = (error) => error?.code === 401;

const text = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');

before(async () => {
  await startServer();
  token = fs.readFileSync(path.join(dataDir, 'http-token'), 'utf8').trim();
  ({ client, transport } = await connectClient('code-sandbox-e2e-http'));
});

after(async () => {
  for (const c of [client, ...extraClients]) {
    try { await c?.close(); } catch { /* the server may be gone already */ }
  }
  const pid = server?.pid;
  await stopServer();
  // A server that had to be SIGKILLed leaves its containers: remove them, so they do not pile up.
  if (pid) {
    try {
      const { stdout } = await run(engine, ['ps', '-aq', '--filter', `label=code-sandbox.pid=${pid}`]);
      const ids = stdout.split('\n').filter(Boolean);
      if (ids.length) await run(engine, ['rm', '-f', ...ids]);
    } catch { /* best effort */ }
  }
  fs.rmSync(scratch, { recursive: true, force: true });
});

// ---- the tests -----------------------------------------------------------------------------

test('connects over Streamable HTTP and gets a session id', () => {
  assert.match(serverUrl, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  assert.ok(transport.sessionId, 'Mcp-Session-Id on the initialize response');
  assert.equal(client.getServerVersion().name, 'code-sandbox');
  assert.ok(client.getServerCapabilities().tools, 'tools capability');
});

test('the token is kept in the data folder for its owner only, and is never logged', () => {
  const mode = fs.statSync(path.join(dataDir, 'http-token')).mode & 0o777;
  assert.equal(mode, 0o600, `http-token mode ${mode.toString(8)}`);
  assert.match(token, /^[0-9a-f]{64}$/);
  assert.ok(stderr.includes(path.join(dataDir, 'http-token')), stderr);
  assert.ok(!stderr.includes(token), 'the server logged its token');
});

test('a request without the token is refused with 401', async () => {
  const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
  for (const authorization of [undefined, 'Bearer wrong', `Basic ${token}`]) {
    const response = await fetch(serverUrl, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        ...(authorization ? { Authorization: authorization } : {}),
      },
      body: JSON.stringify(initialize),
    });
    await response.text();
    assert.equal(response.status, 401, `Authorization: ${authorization}`);
    assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer/);
    assert.equal(response.headers.get('mcp-session-id'), null);
  }
  // The SDK client without the header does not get a session.
  await assert.rejects(connectClient('no-token', { headers: {} }), refusedWith401);
});

// `install-client CLIENT --http` into a home folder of its own: the file it writes is what the
// SDK client is given (url and headers), and a call goes through.
async function installClient(id) {
  const home = fs.mkdtempSync(path.join(scratch, `home-${id}-`));
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'),
    CODE_SANDBOX_DATA_DIR: dataDir };
  delete env.CODE_SANDBOX_AUTH_TOKEN;
  const { stdout, stderr: err } = await run(binary, ['install-client', id, '--http', '--url', serverUrl], { env });
  assert.ok(!stdout.includes(token) && !err.includes(token), 'install-client printed the token');
  const file = id === 'cursor' ? path.join(home, '.cursor', 'mcp.json')
    : path.join(home, '.config', 'Code', 'User', 'mcp.json');
  const mode = fs.statSync(file).mode & 0o777;
  assert.equal(mode, 0o600, `${file} mode ${mode.toString(8)}`);
  const config = JSON.parse(fs.readFileSync(file, 'utf8'));
  return (id === 'cursor' ? config.mcpServers : config.servers)['code-sandbox'];
}

for (const id of ['cursor', 'vscode']) {
  test(`install-client ${id} --http: a real client call with what it wrote`, async () => {
    const entry = await installClient(id);
    if (id === 'vscode') assert.equal(entry.type, 'http');
    assert.equal(entry.url, serverUrl);
    assert.deepEqual(Object.keys(entry.headers), ['Authorization']);
    const configured = await connectClient(`configured-by-install-client-${id}`,
      { url: entry.url, headers: entry.headers });
    extraClients.push(configured.client);
    const result = await configured.client.callTool({ name: 'run_python_code', arguments: { code: 'print("configured")' } });
    assert.equal(result.isError, false, stderr);
    assert.equal(result.structuredContent.stdout, 'configured\n');
    // The same url without the file's headers: refused.
    await assert.rejects(connectClient('without-the-headers', { url: entry.url, headers: {} }),
      refusedWith401);
  });
}

test('lists run_python_code and run_js_code, each once, with schemas, and the session tools', async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ['run_python_code', 'run_js_code', 'list_sessions', 'end_session']);
  for (const tool of tools.slice(0, 2)) {
    assert.ok(tool.description.length > 50, `${tool.name} has a description`);
    assert.equal(tool.inputSchema.type, 'object');
    assert.equal(tool.inputSchema.properties.code.type, 'string');
    assert.deepEqual(tool.inputSchema.required, ['code']);
    assert.equal(tool.outputSchema.type, 'object');
  }
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
  assert.equal(result.structuredContent.exit_code, 0);
});

test('progress notifications keep a 12 s run alive past a 10 s request timeout', async (t) => {
  const lines = Array.from({ length: 12 }, (_, i) => `tick ${i + 1}`);
  const code = 'import time\nfor i in range(12):\n    print(f"tick {i + 1}")\n    time.sleep(1)\n';
  const progress = [];
  const start = Date.now();
  let resultAt;
  const result = await client.callTool(
    { name: 'run_python_code', arguments: { code, timeout_seconds: 60 } },
    undefined,
    {
      timeout: 10_000,
      resetTimeoutOnProgress: true,
      onprogress: (p) => progress.push({ ...p, at: Date.now() - start }),
    },
  );
  resultAt = Date.now() - start;
  t.diagnostic(`result after ${resultAt} ms; progress: ${JSON.stringify(progress)}`);

  // The final result is complete.
  assert.equal(result.isError, false, stderr);
  assert.equal(result.structuredContent.stdout, lines.map((l) => `${l}\n`).join(''));
  assert.equal(result.structuredContent.exit_code, 0);
  assert.equal(result.structuredContent.timed_out, false);
  assert.ok(resultAt >= 11_000, `the program ran its 12 s (${resultAt} ms)`);

  // Several notifications, spread over the run, at most 5 s apart.
  assert.ok(progress.length >= 3, `at least 3 progress notifications, got ${progress.length}`);
  assert.ok(progress[0].at < 6_000, `the first progress came within 6 s (${progress[0].at} ms)`);
  const gaps = progress.map((p, i) => p.at - (i ? progress[i - 1].at : 0));
  assert.ok(Math.max(...gaps) < 6_000, `progress at most about 5 s apart (gaps ${gaps.join(', ')} ms)`);
  assert.ok(progress.filter((p) => p.at < resultAt - 1_000).length >= 2, 'progress arrived while it ran');

  // Strictly increasing progress values.
  for (let i = 1; i < progress.length; i++) {
    assert.ok(progress[i].progress > progress[i - 1].progress,
      `progress strictly increases: ${progress.map((p) => p.progress).join(', ')}`);
  }
  // The message is the latest output line.
  const messages = progress.map((p) => p.message).filter((m) => m !== undefined);
  assert.ok(messages.some((m) => lines.includes(m)),
    `some progress message is a printed line: ${JSON.stringify(messages)}`);
});

test('cancelling a call kills and removes its container', async (t) => {
  const { marker, code } = markedSleep(60);
  const abort = new AbortController();
  const call = client.callTool(
    { name: 'run_python_code', arguments: { code, timeout_seconds: 120 } },
    undefined,
    { signal: abort.signal, timeout: 120_000 },
  );
  const outcome = call.then(() => 'resolved', (error) => error);
  const name = await findCallContainer(marker);
  t.diagnostic(`the call runs in ${name}`);

  abort.abort('e2e: cancelled by the test');
  const settled = await Promise.race([outcome, sleep(5_000).then(() => 'pending')]);
  assert.notEqual(settled, 'resolved', 'an aborted call rejects');
  assert.notEqual(settled, 'pending', 'an aborted call rejects at once');

  const { stoppedAfter, removedAfter } = await assertContainerGone(name);
  t.diagnostic(`stopped after ${stoppedAfter} ms, removed after ${removedAfter} ms`);

  // The session is still usable.
  const result = await client.callTool({ name: 'run_python_code', arguments: { code: 'print("after cancel")' } });
  assert.equal(result.structuredContent.stdout, 'after cancel\n');
});

test('DELETE ends the session: its running call\'s container is removed, the id is then unknown', async (t) => {
  const second = await connectClient('code-sandbox-e2e-http-delete');
  extraClients.push(second.client);
  const sessionId = second.transport.sessionId;
  assert.ok(sessionId);

  const { marker, code } = markedSleep(60);
  const call = second.client.callTool(
    { name: 'run_python_code', arguments: { code, timeout_seconds: 120 } },
    undefined,
    { timeout: 120_000 },
  );
  const outcome = call.then(() => 'resolved', (error) => `rejected: ${error?.message ?? error}`);
  const name = await findCallContainer(marker);
  t.diagnostic(`the call runs in ${name}`);

  await second.transport.terminateSession();
  const { stoppedAfter, removedAfter } = await assertContainerGone(name);
  t.diagnostic(`stopped after ${stoppedAfter} ms, removed after ${removedAfter} ms`);
  // The call is answered with an error saying why, rather than left to its own timeout.
  const settled = await Promise.race([outcome, sleep(5_000).then(() => 'still pending')]);
  assert.match(settled, /^rejected: .*session ended \(deleted by the client\)/, settled);

  // A raw POST with the old session id.
  const response = await fetch(serverUrl, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      Authorization: `Bearer ${token}`,
      'Mcp-Session-Id': sessionId,
      'MCP-Protocol-Version': second.transport.protocolVersion ?? '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
  });
  const body = await response.text();
  assert.equal(response.status, 404, `POST with an ended session id: ${response.status} ${body}`);

  // The other session is untouched.
  const result = await client.callTool({ name: 'run_js_code', arguments: { code: 'console.log("still here")' } });
  assert.equal(result.structuredContent.stdout, 'still here\n');
});

test('a second client gets its own session and both call tools at the same time', async () => {
  const second = await connectClient('code-sandbox-e2e-http-second');
  extraClients.push(second.client);
  assert.ok(second.transport.sessionId);
  assert.notEqual(second.transport.sessionId, transport.sessionId);

  // Each program says when it ran (the containers' clock is the host's): the two runs overlap
  // in time, however long the engine took to start them on a busy machine.
  const program = (name) => `import time\nstart = time.time()\ntime.sleep(3)\nprint("${name}", start, time.time())`;
  const [a, b] = await Promise.all([
    client.callTool({ name: 'run_python_code', arguments: { code: program('first') } }),
    second.client.callTool({ name: 'run_python_code', arguments: { code: program('second') } }),
  ]);
  const [aName, aStart, aEnd] = a.structuredContent.stdout.trim().split(' ');
  const [bName, bStart, bEnd] = b.structuredContent.stdout.trim().split(' ');
  assert.equal(aName, 'first');
  assert.equal(bName, 'second');
  assert.ok(Number(aStart) < Number(bEnd) && Number(bStart) < Number(aEnd),
    `the two 3 s runs overlapped: first ${aStart}-${aEnd}, second ${bStart}-${bEnd}`);

  const js = await second.client.callTool({ name: 'run_js_code', arguments: { code: 'console.log(1+1)' } });
  assert.equal(js.structuredContent.stdout, '2\n');
});

test('sessions: state between calls, another MCP session\'s same name is its own, DELETE ends them', async () => {
  const second = await connectClient('code-sandbox-e2e-http-sessions');
  extraClients.push(second.client);
  const cell = (c, code) => c.callTool({ name: 'run_python_code', arguments: { code, session: 'work' } });
  assert.equal((await cell(client, 'x = 1')).isError, false);
  assert.equal((await cell(second.client, 'x = 2')).isError, false);
  assert.equal((await cell(client, 'x + 40')).structuredContent.stdout, '41\n');
  assert.equal((await cell(second.client, 'x + 40')).structuredContent.stdout, '42\n');
  const listed = await second.client.callTool({ name: 'list_sessions', arguments: {} });
  assert.match(text(listed), /^work \(Python\): 2 cell\(s\)/);

  // The session's interpreter names itself, so that the test finds its container.
  const marker = `sess${randomBytes(4).toString('hex')}`;
  await cell(second.client, `open('/proc/self/comm', 'w').write('${marker}')`);
  const name = await findCallContainer(marker);
  await second.transport.terminateSession();
  await assertContainerGone(name);
  // The first client's session lives on.
  assert.equal((await cell(client, 'x')).structuredContent.stdout, '1\n');
});

test('SIGTERM: the server removes its containers and exits', async () => {
  const left = await containers({ all: true });
  assert.ok(left.length > 0, 'the warm pool has containers to remove');
  server.kill('SIGTERM');
  const exit = await Promise.race([serverExit, sleep(15_000).then(() => null)]);
  assert.ok(exit, 'the server exits within 15 s of SIGTERM');
  assert.equal(exit.code, 0, `exit ${JSON.stringify(exit)}; stderr:\n${stderr.slice(-2000)}`);
  assert.deepEqual(await containers({ all: true }), [], 'no container of the server is left');
});
