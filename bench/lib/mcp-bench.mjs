// What the benchmark scripts share: the official MCP SDK client, a code-sandbox-mcp server
// launched through it over stdio with its log counted, timed calls, percentiles, progress lines
// and the common options. Every script stays a plain `node X.mjs`; nothing here downloads.

import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

export const benchDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

// ---------------------------------------------------------------------------------------------
// The SDK: bench/node_modules if someone installed it there, else the end-to-end tests' copy
// (tests/e2e, `npm ci`). Loaded through the package's exports map, never its file layout.

let sdkCache = null;

export function loadSdk() {
  if (sdkCache) return sdkCache;
  for (const anchor of [path.join(benchDir, 'package.json'), path.join(benchDir, '..', 'tests', 'e2e', 'package.json')]) {
    const require = createRequire(pathToFileURL(anchor));
    try {
      const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
      const { StdioClientTransport, getDefaultEnvironment } = require('@modelcontextprotocol/sdk/client/stdio.js');
      // .../sdk/dist/cjs/client/index.js: the package's own package.json is three folders up.
      const packageJson = path.join(path.dirname(require.resolve('@modelcontextprotocol/sdk/client/index.js')), '..', '..', '..', 'package.json');
      const { version } = JSON.parse(fs.readFileSync(packageJson, 'utf8'));
      sdkCache = { Client, StdioClientTransport, getDefaultEnvironment, version, from: anchor };
      return sdkCache;
    } catch (error) {
      if (error.code !== 'MODULE_NOT_FOUND') throw error;
    }
  }
  throw new Error('the MCP TypeScript SDK is not installed: run `npm ci --prefix tests/e2e` (or `npm install` in bench)');
}

// ---------------------------------------------------------------------------------------------
// Small helpers

export const now = () => performance.now();
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export const loadText = () => os.loadavg().map((v) => v.toFixed(2)).join(' ');

export function progress(message) {
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)} load ${loadText()}] ${message}\n`);
}

// An engine CLI (or any program), without a shell. Resolves to {stdout, stderr}; a failure's
// message carries the program's stderr.
export function run(program, args, { timeoutMs = 120_000 } = {}) {
  return new Promise((resolve, reject) => {
    execFile(program, args, { timeout: timeoutMs, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      if (error) {
        error.message += `\n${stderr}`;
        reject(error);
      } else {
        resolve({ stdout, stderr });
      }
    });
  });
}

// Nearest-rank percentile of an ascending array: p50 of 50 samples is the 25th smallest.
export function percentile(sorted, p) {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    min: sorted[0],
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    max: sorted.at(-1),
    mean: sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : undefined,
  };
}

// The Python image the server uses by default, as each engine names it.
export const defaultPythonImage = (engine) =>
  engine === 'podman' ? 'localhost/code-sandbox-python:latest' : 'code-sandbox-python:latest';

// ---------------------------------------------------------------------------------------------
// Options: --server, --engine and --json (and -h) for every script, plus the script's own.

export function fail(script, message) {
  console.error(`${script}: ${message}`);
  process.exit(2);
}

// `usage` is printed for -h/--help. Checks the engine's name and that the server exists, so a
// run does not start its series only to fail on a missing binary.
export function parseOptions(script, options, usage) {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        server: { type: 'string', default: path.join(benchDir, '..', 'build', 'bin', 'code-sandbox-mcp') },
        engine: { type: 'string', default: 'podman' },
        json: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
        ...options,
      },
    }));
  } catch (error) {
    fail(script, `${error.message}\n${usage}`);
  }
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  if (!['podman', 'docker'].includes(values.engine)) fail(script, `--engine must be podman or docker, not ${values.engine}`);
  values.server = path.resolve(values.server);
  if (!fs.existsSync(values.server)) fail(script, `no server at ${values.server}: build it (cmake --build build), or name it with --server`);
  return values;
}

// An integer option of at least `min`.
export function intOption(script, values, name, min = 1) {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < min) fail(script, `--${name} must be an integer of at least ${min}, not ${values[name]}`);
  return n;
}

// ---------------------------------------------------------------------------------------------
// The server under test, launched by the SDK over stdio with its stderr piped. Its log (it
// must run with --verbose) is counted per line:
// - readyLines: "warm pool: NAME ready; N ready in all", and lastReadyCount = that N;
// - warm / cold: "running NAME from IMAGE (warm)" or "(cold)"; matched on the prefixes "(warm"
//   and "(cold" so that extra words inside the brackets still count;
// - takesSinceReadyLine: warm runs since the last ready line (to tell when the pool is full).
// onLine(line, msSinceSpawn) sees every line too.

export async function startServer({ server, engine, args = [], env = {}, onLine = null, listTools = true }) {
  const sdk = loadSdk();
  const transport = new sdk.StdioClientTransport({
    command: server,
    args,
    // The isolation tier the bench runs under, as the bench itself was started
    // (CODE_SANDBOX_ISOLATION=gvisor node ...): the SDK passes no other variable on.
    env: {
      ...sdk.getDefaultEnvironment(),
      CODE_SANDBOX_ENGINE: engine,
      ...(process.env.CODE_SANDBOX_ISOLATION ? { CODE_SANDBOX_ISOLATION: process.env.CODE_SANDBOX_ISOLATION } : {}),
      ...env,
    },
    stderr: 'pipe',
  });
  const state = {
    args,
    transport,
    readyLines: 0,
    lastReadyCount: 0,
    takesSinceReadyLine: 0,
    warm: 0,
    cold: 0,
    waiters: [],
  };
  let partial = '';
  const t0 = now();
  transport.stderr.on('data', (chunk) => {
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop();
    for (const line of parts) {
      if (line.includes(' ready in all')) {
        state.readyLines += 1;
        state.lastReadyCount = Number(line.match(/(\d+) ready in all/)?.[1] ?? 0);
        state.takesSinceReadyLine = 0;
      }
      if (line.includes('(warm')) {
        state.warm += 1;
        state.takesSinceReadyLine += 1;
      }
      if (line.includes('(cold')) state.cold += 1;
      onLine?.(line, now() - t0);
    }
    for (const waiter of [...state.waiters]) waiter();
  });
  state.client = new sdk.Client({ name: 'code-sandbox-bench', version: '1.0.0' });
  await state.client.connect(transport); // resolves on the `initialize` result
  state.initMs = now() - t0;
  state.t0 = t0;
  state.pid = transport.pid;
  // As MCP clients do before calling: the SDK then also checks every structuredContent against
  // the tool's outputSchema.
  if (listTools) await state.client.listTools();
  return state;
}

// Ends the session (the SDK closes stdin, then sends SIGTERM after 2 s and SIGKILL after 4 s)
// and waits until the process is gone, having removed its containers.
export async function closeServer(server, timeoutMs = 15_000) {
  await server.client.close();
  const start = now();
  while (now() - start < timeoutMs) {
    try {
      if (/^State:\s+Z/m.test(fs.readFileSync(`/proc/${server.pid}/status`, 'utf8'))) return;
    } catch {
      return; // gone
    }
    await sleep(20);
  }
}

// Which server is measured: on a shared machine someone may rebuild it in the middle of a run.
export function identifyServer(serverBinary) {
  const stat = fs.statSync(serverBinary);
  const sha256 = createHash('sha256').update(fs.readFileSync(serverBinary)).digest('hex').slice(0, 12);
  const cache = path.join(path.dirname(serverBinary), '..', 'CMakeCache.txt');
  const buildType = fs.existsSync(cache)
    ? (fs.readFileSync(cache, 'utf8').match(/^CMAKE_BUILD_TYPE:STRING=(.*)$/m)?.[1] || 'none')
    : 'unknown';
  let commit = 'unknown';
  try {
    const dir = path.dirname(serverBinary);
    commit = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['-C', dir, 'status', '--porcelain', '--', ':/engine', ':/app', ':/launcher'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (dirty) commit += ' + uncommitted changes';
  } catch {
    // Not in a git checkout.
  }
  return { path: serverBinary, sha256, modified: stat.mtime.toISOString(), buildType, commit };
}

// Resolves when `predicate()` holds, re-checked on every line the server logs.
export function waitFor(server, predicate, what, timeoutMs = 120_000) {
  if (predicate()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      server.waiters.splice(server.waiters.indexOf(check), 1);
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    const check = () => {
      if (!predicate()) return;
      clearTimeout(timer);
      server.waiters.splice(server.waiters.indexOf(check), 1);
      resolve();
    };
    server.waiters.push(check);
  });
}

export const waitReadyLines = (server, n, timeoutMs) =>
  waitFor(server, () => server.readyLines >= n, `${n} "ready in all" lines (have ${server.readyLines})`, timeoutMs);

// The pool holds `full` ready containers (or more, where it has grown): the last ready line said
// so, less the warm containers taken since.
export const waitPoolFull = (server, full, timeoutMs) =>
  waitFor(server, () => server.lastReadyCount - server.takesSinceReadyLine >= full, `a full pool (${full} ready)`, timeoutMs);

// One timed call. `expected` is the exact stdout, or a RegExp it must match. Throws on an error
// result or other output.
export async function call(server, code, expected, { tool = 'run_python_code', label = 'call' } = {}) {
  const start = now();
  const result = await server.client.callTool({ name: tool, arguments: { code } });
  const ms = now() - start;
  const stdout = result.structuredContent?.stdout;
  const ok = expected instanceof RegExp ? expected.test(stdout ?? '') : stdout === expected;
  if (result.isError || !ok) throw new Error(`${label} failed: ${JSON.stringify(result).slice(0, 2000)}`);
  return {
    ms,
    programMs: result.structuredContent.duration_ms,
    images: (result.content ?? []).filter((c) => c.type === 'image').length,
    result,
  };
}

// ---------------------------------------------------------------------------------------------
// The server's containers as the engine sees them (running ones), by the labels it sets.

export async function runningContainers(engine, serverPid, language = null) {
  const filters = ['--filter', `label=code-sandbox.pid=${serverPid}`];
  if (language) filters.push('--filter', `label=code-sandbox.language=${language}`);
  const { stdout } = await run(engine, ['ps', ...filters, '--format', '{{.Names}}']);
  return stdout.split('\n').filter(Boolean);
}

// Memory of each idle pooled container of `language`, as `ENGINE stats` reports it (its
// cgroup's usage): one "NAME USAGE / LIMIT" string each.
export async function idleContainerMemory(engine, serverPid, language = 'python') {
  const names = await runningContainers(engine, serverPid, language);
  if (names.length === 0) return [];
  const { stdout } = await run(engine, ['stats', '--no-stream', '--format', '{{.Name}} {{.MemUsage}}', ...names]);
  return stdout.split('\n').filter(Boolean);
}

// ---------------------------------------------------------------------------------------------
// Issue 16's plot call: a small pandas frame, a groupby, a bar chart. `finish` is what is done
// with the chart: saved (`plt.savefig(...)`) or shown (`plt.show()`, so it comes back as image
// content).

export const plotProgram = (finish) => `import pandas as pd
import matplotlib.pyplot as plt
df = pd.DataFrame({"region": ["north", "south", "east", "west"] * 25, "sales": range(100)})
totals = df.groupby("region")["sales"].sum()
totals.plot.bar(title="Sales by region")
${finish}
print(totals.to_string())
`;
export const PLOT_OUTPUT = 'region\neast     1250\nnorth    1200\nsouth    1225\nwest     1275\n';
