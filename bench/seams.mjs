#!/usr/bin/env node
// Issue 33's seams: what a request costs between the parts rather than in the sandbox. One server
// over stdio and one over Streamable HTTP (keep-alive, with its bearer token), each driven by the
// official SDK client: `ping`, `tools/list`, and a session cell `x + 1` in a live Python session.
// Beside them, the same requests as raw JSON-RPC lines over stdio, without the SDK, with the
// history and without: what the server itself spends, apart from the client's own work (the SDK
// compiles every tool's outputSchema on `tools/list`, and checks every result against it); and
// the same over raw HTTP/1.1 on one keep-alive socket, the server's own cost of HTTP. Last, the
// SDK's HTTP client against a Node server in this process that answers at once: the client's own
// floor, which no server can go below.
//
// --stored-runs N gives each server's history the files of N earlier runs (a 30 KB chart each), as
// a history that has been in use for a while has.
//
// Usage: node seams.mjs [--server PATH] [--engine podman|docker] [--calls N] [--port P]
//                       [--settle-ms MS] [--stored-runs N] [--json FILE]

import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  benchDir,
  closeServer,
  intOption,
  loadSdk,
  now,
  parseOptions,
  progress,
  sleep,
  startServer,
  summarize,
} from './lib/mcp-bench.mjs';

const script = 'seams.mjs';
const opts = parseOptions(script, {
  calls: { type: 'string', default: '200' },
  port: { type: 'string', default: '18765' },
  // A server fills its warm pool as it starts (a few containers, seconds of CPU on 2 cores):
  // measured before that ends, a cell pays for the refills beside it.
  'settle-ms': { type: 'string', default: '8000' },
  'stored-runs': { type: 'string', default: '0' },
}, 'Usage: node seams.mjs [--server PATH] [--engine podman|docker] [--calls N] [--port P] [--settle-ms MS] [--stored-runs N] [--json FILE]');
const calls = intOption(script, opts, 'calls');
const settleMs = intOption(script, opts, 'settle-ms', 0);
const port = intOption(script, opts, 'port');
const storedRuns = intOption(script, opts, 'stored-runs', 0);
// The servers keep their history (as by default) in a folder of their own.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'seams-'));

// A server's data folder `folder`, with the files of `storedRuns` earlier runs in it, laid out as
// the server keeps them (run-files/KEY/in, run-files/KEY/out/chart.png).
function historyFolder(folder) {
  const root = path.join(dataDir, folder);
  const chart = Buffer.alloc(30 * 1024, 1);
  for (let k = 0; k < storedRuns; k++) {
    const run = path.join(root, 'run-files', crypto.randomUUID());
    fs.mkdirSync(path.join(run, 'in'), { recursive: true });
    fs.mkdirSync(path.join(run, 'out'));
    fs.writeFileSync(path.join(run, 'out', 'chart.png'), chart);
  }
  return root;
}

async function series(label, n, fn) {
  progress(`${label}: ${n} requests`);
  for (let k = 0; k < Math.min(10, n); k++) await fn(); // warm-up, not counted
  const samples = [];
  for (let k = 0; k < n; k++) {
    const start = now();
    await fn();
    samples.push(now() - start);
  }
  return summarize(samples);
}

async function sessionCells(client, n) {
  const cell = async (code) => {
    const result = await client.callTool({
      name: 'run_python_code',
      arguments: { code, session: 'seams' },
    });
    if (result.isError) throw new Error(`cell failed: ${JSON.stringify(result).slice(0, 800)}`);
  };
  await cell('x = 41');
  return series('session cell x + 1', n, () => cell('x + 1'));
}

async function measureSdk(label, client) {
  return {
    ping: await series(`${label} ping`, calls, () => client.ping()),
    toolsList: await series(`${label} tools/list`, Math.max(20, calls / 4), () => client.listTools()),
    sessionCell: await sessionCells(client, Math.max(20, calls / 2)),
  };
}

// Pings, tools/list and session cells through `request(method, params)`, which throws on a
// failed answer: the raw clients' series.
async function rawSeries(label, request) {
  const cell = (code) => request('tools/call', { name: 'run_python_code', arguments: { code, session: 'seams' } });
  await cell('x = 41');
  return {
    ping: await series(`${label} ping`, calls, () => request('ping')),
    toolsList: await series(`${label} tools/list`, Math.max(20, calls / 4), () => request('tools/list')),
    sessionCell: await series(`${label} session cell x + 1`, Math.max(20, calls / 2), () => cell('x + 1')),
  };
}

// A server on Streamable HTTP at `serverPort`, with `token`, its history in `folder`.
function startHttpServer(serverPort, token, folder) {
  return spawn(opts.server, ['--transport', 'http', '--host', '127.0.0.1', '--port', String(serverPort),
    '--data-dir', historyFolder(folder)], {
    env: { ...process.env, CODE_SANDBOX_ENGINE: opts.engine, CODE_SANDBOX_AUTH_TOKEN: token },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
}

async function stopHttpServer(child) {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.on('exit', resolve));
}

// Raw JSON-RPC lines to a server on stdio: no SDK between. `args`: the server's (its history
// on or off); `label`: the rows' name.
async function measureRaw(args, label) {
  const child = spawn(opts.server, args, {
    env: { ...process.env, CODE_SANDBOX_ENGINE: opts.engine },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  let buffer = '';
  const waiting = new Map();
  child.stdout.on('data', (chunk) => {
    buffer += chunk.toString();
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const message = JSON.parse(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    }
  });
  let id = 0;
  const request = (method, params = {}) => new Promise((resolve) => {
    id += 1;
    waiting.set(id, resolve);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  });
  await request('initialize', {
    protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'seams', version: '1' },
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  await sleep(settleMs);
  const result = await rawSeries(label, async (method, params) => {
    const answer = await request(method, params);
    if (!answer.result || answer.result.isError) throw new Error(`${method} failed: ${JSON.stringify(answer).slice(0, 800)}`);
  });
  child.stdin.end();
  await new Promise((resolve) => child.on('exit', resolve));
  return result;
}

// Raw HTTP/1.1 requests on one keep-alive socket to a server on Streamable HTTP, with its history:
// what the server's HTTP costs, apart from the SDK client's fetch.
async function measureRawHttp() {
  const rawPort = port + 1;
  const token = 'seams-raw-http-token-0123456789abcdef';
  const child = startHttpServer(rawPort, token, 'raw-http');
  try {
    await waitForPort(rawPort);
    const socket = net.connect(rawPort, '127.0.0.1');
    socket.setNoDelay(true);
    await new Promise((resolve) => socket.on('connect', resolve));
    let received = Buffer.alloc(0);
    let check = null;
    socket.on('data', (chunk) => { received = Buffer.concat([received, chunk]); check?.(); });
    // One response: its head, and its body by Content-Length or chunks.
    const response = () => new Promise((resolve) => {
      check = () => {
        const text = received.toString('latin1');
        const headEnd = text.indexOf('\r\n\r\n');
        if (headEnd < 0) return;
        const head = text.slice(0, headEnd);
        const length = /content-length: (\d+)/i.exec(head);
        let end;
        if (length) {
          end = headEnd + 4 + Number(length[1]);
          if (received.length < end) return;
        } else {
          const last = text.indexOf('\r\n0\r\n\r\n', headEnd);
          if (last < 0) return;
          end = last + 7;
        }
        const body = received.subarray(headEnd + 4, end).toString();
        received = received.subarray(end);
        check = null;
        resolve({ head, body });
      };
      check();
    });
    let session = '';
    let id = 0;
    const post = (message) => {
      const body = JSON.stringify(message);
      socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${rawPort}\r\nAuthorization: Bearer ${token}\r\n` +
        'Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n' +
        (session ? `Mcp-Session-Id: ${session}\r\nMcp-Protocol-Version: 2025-11-25\r\n` : '') +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      return response();
    };
    const request = async (method, params = {}) => {
      id += 1;
      const { body } = await post({ jsonrpc: '2.0', id, method, params });
      if (!body.includes('"result"') || body.includes('"isError":true')) throw new Error(`${method} failed: ${body.slice(0, 500)}`);
    };
    const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'seams', version: '1' } } });
    session = /mcp-session-id: (\S+)/i.exec(init.head)[1];
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await sleep(settleMs);
    const result = await rawSeries('raw http', request);
    socket.end();
    return result;
  } finally {
    await stopHttpServer(child);
  }
}

function waitForPort(p, timeoutMs = 30_000) {
  const start = now();
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const socket = net.connect(p, '127.0.0.1');
      socket.on('connect', () => { socket.destroy(); resolve(); });
      socket.on('error', () => {
        socket.destroy();
        if (now() - start > timeoutMs) reject(new Error(`nothing listens on ${p}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

async function measureHttp() {
  const sdk = loadSdk();
  const require = createRequire(pathToFileURL(sdk.from));
  const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const token = 'seams-bench-token-0123456789abcdef';
  const child = startHttpServer(port, token, 'http');
  try {
    await waitForPort(port);
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    const client = new sdk.Client({ name: 'code-sandbox-bench', version: '1.0.0' });
    await client.connect(transport);
    await client.listTools();
    await sleep(settleMs);
    const result = await measureSdk('http', client);
    await client.close();
    return result;
  } finally {
    await stopHttpServer(child);
  }
}

// The SDK client's own cost of HTTP: the same transport against a Node server in this process
// that answers every request at once, as code-sandbox-mcp frames its answers (JSON for a ping,
// an event stream for tools/call) and with no work behind them. What an answer costs the client
// beyond this is the server's.
async function measureHttpFloor() {
  const sdk = loadSdk();
  const require = createRequire(pathToFileURL(sdk.from));
  const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const http = await import('node:http');
  const result = { content: [{ type: 'text', text: '42\n' }], isError: false };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      const message = body ? JSON.parse(body) : {};
      if (req.method !== 'POST' || message.id === undefined) {
        res.writeHead(req.method === 'POST' ? 202 : 405).end();
        return;
      }
      const answer = message.method === 'initialize'
        ? { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'floor', version: '1' } }
        : message.method === 'tools/call' ? result : {};
      const text = JSON.stringify({ jsonrpc: '2.0', id: message.id, result: answer });
      if (message.method === 'tools/call') {
        res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
        res.end(`event: message\ndata: ${text}\n\n`);
      } else {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Mcp-Session-Id': 'floor', 'Content-Length': Buffer.byteLength(text) });
        res.end(text);
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new sdk.Client({ name: 'code-sandbox-bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.address().port}/mcp`)));
  const floor = {
    ping: await series('http floor ping', calls, () => client.ping()),
    call: await series('http floor tools/call', Math.max(20, calls / 2),
      () => client.callTool({ name: 'run_python_code', arguments: { code: 'x + 1' } })),
  };
  await client.close();
  await new Promise((resolve) => server.close(resolve));
  return floor;
}

const rows = (name, r) => [
  `| ${name} ping | ${r.ping.p50.toFixed(2)} | ${r.ping.p95.toFixed(2)} |`,
  `| ${name} tools/list | ${r.toolsList.p50.toFixed(2)} | ${r.toolsList.p95.toFixed(2)} |`,
  ...(r.sessionCell ? [`| ${name} session cell \`x + 1\` | ${r.sessionCell.p50.toFixed(2)} | ${r.sessionCell.p95.toFixed(2)} |`] : []),
];

const stdioServer = await startServer({
  server: opts.server, engine: opts.engine, args: ['--data-dir', historyFolder('stdio')],
});
await sleep(settleMs);
const stdio = await measureSdk('stdio', stdioServer.client);
await closeServer(stdioServer);
await sleep(500);
const raw = await measureRaw(['--data-dir', historyFolder('raw')], 'raw stdio');
await sleep(500);
const rawNoHistory = await measureRaw(['--no-history'], 'raw stdio, no history');
await sleep(500);
const rawHttp = await measureRawHttp();
await sleep(500);
const http = await measureHttp();
await sleep(500);
const floor = await measureHttpFloor();

console.log(`SDK ${loadSdk().version}, engine ${opts.engine}, server ${path.relative(benchDir, opts.server)}` +
  (storedRuns > 0 ? `, ${storedRuns} earlier runs' files in each history` : ''));
console.log('| request (ms) | p50 | p95 |');
console.log('|---|---:|---:|');
for (const line of [...rows('SDK, stdio:', stdio), ...rows('SDK, HTTP:', http), ...rows('raw JSON-RPC, stdio:', raw),
  ...rows('raw JSON-RPC, stdio, --no-history:', rawNoHistory), ...rows('raw HTTP/1.1, keep-alive:', rawHttp),
  `| SDK, HTTP, a Node server answering at once: ping | ${floor.ping.p50.toFixed(2)} | ${floor.ping.p95.toFixed(2)} |`,
  `| SDK, HTTP, a Node server answering at once: tools/call (event stream) | ${floor.call.p50.toFixed(2)} | ${floor.call.p95.toFixed(2)} |`])
  console.log(line);
if (opts.json) fs.writeFileSync(opts.json, JSON.stringify({ stdio, http, raw, rawNoHistory, rawHttp, floor }, null, 2));
fs.rmSync(dataDir, { recursive: true, force: true });
