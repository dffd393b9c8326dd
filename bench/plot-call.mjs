#!/usr/bin/env node
// The plot call of issue 16 (a small pandas frame, a groupby, a bar chart saved), end to end
// through the official MCP SDK client over stdio, on a pooled server: p50 with the pool refilled
// between calls, print(1) the same way for comparison, print(1) back to back (no waiting for
// refills), and the memory of the idle pooled Python containers as the engine reports it.
//
// Usage: node plot-call.mjs [--server PATH] [--engine podman|docker] [--calls N]
//        [--back-to-back N] [--pool N] [--settle-ms MS] [--json FILE]

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: opts } = parseArgs({
  options: {
    server: { type: 'string', default: path.join(here, '..', 'build', 'bin', 'code-sandbox-mcp') },
    engine: { type: 'string', default: 'podman' },
    calls: { type: 'string', default: '30' },
    'back-to-back': { type: 'string', default: '30' },
    pool: { type: 'string', default: '2' },
    // After a pooled container is ready (its launcher listens), how long before the next call: a
    // pooled interpreter may still be importing then.
    'settle-ms': { type: 'string', default: '3000' },
    json: { type: 'string' },
  },
});
const engine = opts.engine;
const calls = Number(opts.calls);
const backToBack = Number(opts['back-to-back']);
const poolSize = Number(opts.pool);
const settleMs = Number(opts['settle-ms']);
const fullPool = 2 * poolSize; // Python and JavaScript each

const PLOT = `import pandas as pd
import matplotlib.pyplot as plt
df = pd.DataFrame({"region": ["north", "south", "east", "west"] * 25, "sales": range(100)})
totals = df.groupby("region")["sales"].sum()
totals.plot.bar(title="Sales by region")
plt.savefig("/sandbox/sales.png")
print(totals.to_string())
`;
const PLOT_OUTPUT = 'region\neast     1250\nnorth    1200\nsouth    1225\nwest     1275\n';

function loadSdk() {
  for (const anchor of [path.join(here, 'package.json'), path.join(here, '..', 'tests', 'e2e', 'package.json')]) {
    const require = createRequire(pathToFileURL(anchor));
    try {
      const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
      const { StdioClientTransport, getDefaultEnvironment } = require('@modelcontextprotocol/sdk/client/stdio.js');
      return { Client, StdioClientTransport, getDefaultEnvironment };
    } catch (error) {
      if (error.code !== 'MODULE_NOT_FOUND') throw error;
    }
  }
  throw new Error('the MCP TypeScript SDK is not installed: run `npm ci` in tests/e2e');
}
const sdk = loadSdk();
const now = () => performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const run = (program, args) =>
  new Promise((resolve, reject) =>
    execFile(program, args, { maxBuffer: 16 << 20 }, (error, stdout) => (error ? reject(error) : resolve(stdout))),
  );
const percentile = (sorted, p) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, min: sorted[0], p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted.at(-1) };
}
const progress = (message) =>
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)} load ${os.loadavg()[0].toFixed(2)}] ${message}\n`);

async function startServer() {
  const transport = new sdk.StdioClientTransport({
    command: path.resolve(opts.server),
    args: ['--verbose', '--pool', String(poolSize)],
    env: { ...sdk.getDefaultEnvironment(), CODE_SANDBOX_ENGINE: engine },
    stderr: 'pipe',
  });
  const server = { readyLines: 0, waiters: [], warm: 0, cold: 0 };
  let partial = '';
  transport.stderr.on('data', (chunk) => {
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop();
    for (const line of parts) {
      if (line.includes(' ready in all')) server.readyLines += 1;
      if (line.includes('(warm)')) server.warm += 1;
      if (line.includes('(cold)')) server.cold += 1;
    }
    for (const waiter of [...server.waiters]) waiter();
  });
  server.client = new sdk.Client({ name: 'code-sandbox-bench', version: '1.0.0' });
  await server.client.connect(transport);
  await server.client.listTools();
  server.pid = transport.pid;
  return server;
}

function waitReadyLines(server, n, timeoutMs = 120_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${n} ready lines`)), timeoutMs);
    const check = () => {
      if (server.readyLines < n) return;
      clearTimeout(timer);
      server.waiters.splice(server.waiters.indexOf(check), 1);
      resolve();
    };
    server.waiters.push(check);
    check();
  });
}

async function call(server, code, expected) {
  const start = now();
  const result = await server.client.callTool({ name: 'run_python_code', arguments: { code } });
  const ms = now() - start;
  if (result.isError || result.structuredContent?.stdout !== expected) throw new Error(`call failed: ${JSON.stringify(result).slice(0, 2000)}`);
  return { ms, programMs: result.structuredContent.duration_ms };
}

// Memory of each idle pooled Python container, as `ENGINE stats` reports it (its cgroup's usage).
async function idlePythonContainerMemory(server) {
  const names = (await run(engine, ['ps', '--filter', `label=code-sandbox.pid=${server.pid}`, '--filter', 'label=code-sandbox.language=python', '--format', '{{.Names}}']))
    .split('\n')
    .filter(Boolean);
  if (names.length === 0) return [];
  const out = await run(engine, ['stats', '--no-stream', '--format', '{{.Name}} {{.MemUsage}}', ...names]);
  return out.split('\n').filter(Boolean);
}

async function main() {
  const results = { engine, server: path.resolve(opts.server), loadAtStart: os.loadavg() };
  progress(`starting the server (--pool ${poolSize})`);
  const server = await startServer();
  await waitReadyLines(server, fullPool);
  await sleep(settleMs + 3000);
  results.idlePythonMemory = await idlePythonContainerMemory(server);
  progress(`idle pooled Python containers: ${results.idlePythonMemory.join('; ')}`);

  for (const [label, code, expected] of [
    ['plot', PLOT, PLOT_OUTPUT],
    ['print1', 'print(1)', '1\n'],
  ]) {
    progress(`${label}: ${calls} pooled calls, each after the refill`);
    const samples = [];
    const program = [];
    const warm0 = server.warm;
    for (let k = 0; k < calls; k++) {
      const target = server.readyLines + 1;
      const { ms, programMs } = await call(server, code, expected);
      samples.push(ms);
      program.push(programMs);
      await waitReadyLines(server, target);
      await sleep(settleMs);
    }
    results[label] = { ...summarize(samples), programP50: summarize(program).p50, warm: server.warm - warm0, samples };
  }

  progress(`back to back: ${backToBack} print(1) calls, no waiting`);
  await sleep(3000);
  {
    const samples = [];
    const warm0 = server.warm;
    const cold0 = server.cold;
    const start = now();
    for (let k = 0; k < backToBack; k++) samples.push((await call(server, 'print(1)', '1\n')).ms);
    const wallMs = now() - start;
    results.backToBack = { ...summarize(samples), wallMs, callsPerSecond: (backToBack * 1000) / wallMs, warm: server.warm - warm0, cold: server.cold - cold0, samples };
  }
  results.loadAtEnd = os.loadavg();
  await server.client.close();

  const f = (v) => v.toFixed(1);
  const line = (label, s) => `${label.padEnd(44)} n=${s.n} min ${f(s.min)} p50 ${f(s.p50)} p95 ${f(s.p95)} max ${f(s.max)} ms`;
  console.log(`plot-call benchmark: ${engine}, --pool ${poolSize}, ${settleMs} ms after each refill, server ${results.server}`);
  console.log(`load average at start ${results.loadAtStart.map((v) => v.toFixed(2)).join(' ')}, at end ${results.loadAtEnd.map((v) => v.toFixed(2)).join(' ')}`);
  console.log(line(`plot call, pooled (${results.plot.warm} warm)`, results.plot) + `; program (launcher) p50 ${results.plot.programP50} ms`);
  console.log(line(`print(1), pooled (${results.print1.warm} warm)`, results.print1) + `; program p50 ${results.print1.programP50} ms`);
  const b = results.backToBack;
  console.log(line(`print(1) back to back (${b.warm} warm, ${b.cold} cold)`, b) + `; ${b.callsPerSecond.toFixed(2)} calls/s`);
  console.log(`idle pooled Python containers (${engine} stats): ${results.idlePythonMemory.join('; ')}`);
  if (opts.json) fs.writeFileSync(opts.json, `${JSON.stringify(results, null, 2)}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
