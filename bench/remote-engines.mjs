#!/usr/bin/env node
// Remote engines beside the local ones, in one run (issue 20): the real code-sandbox-mcp over
// stdio with the official MCP TypeScript SDK client, against each engine in turn:
//   podman          the local Podman (the pool's containers run detached, reached through a
//                   socket in a host folder)
//   podman-service  `podman system service` reached as a remote connection (CONTAINER_HOST)
//   docker          the local Docker daemon
//   docker-tls      a second dockerd on a loopback TCP port with TLS
//   docker-ssh      Docker over ssh:// to an sshd on loopback
// The remote ones are started by tests/remote/remote-engine, as the integration tests start them;
// their containers stay attached to an engine client on this machine, which is what the memory
// series counts.
//
// Per engine: pooled latency of print(1) and of a pandas call (a full pool between calls), cold
// latency of print(1) (--pool 0), and the host-side memory per pooled container: the RSS of every
// process the server started that is still running (engine clients, their ssh) over the number
// of pooled containers, plus, apart, the engine's own per-container processes found on this
// machine (conmon, containerd-shim), which on a real remote machine are not on this one.
//
// Usage: node remote-engines.mjs [--server PATH] [--calls N] [--cold-calls N] [--only a,b]
//        [--json FILE]

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  benchDir,
  call,
  closeServer,
  fail,
  identifyServer,
  intOption,
  loadText,
  parseOptions,
  progress,
  sleep,
  startServer,
  summarize,
  waitPoolFull,
} from './lib/mcp-bench.mjs';

const script = 'remote-engines.mjs';
const opts = parseOptions(
  script,
  {
    calls: { type: 'string', default: '20' },
    'cold-calls': { type: 'string', default: '10' },
    pool: { type: 'string', default: '2' },
    only: { type: 'string' },
  },
  `Usage: node remote-engines.mjs [options]
  --server PATH   code-sandbox-mcp to launch (default: ../build/bin/code-sandbox-mcp)
  --calls N       pooled calls per series (default 20)
  --cold-calls N  cold calls (default 10)
  --pool N        pool size per language (default 2)
  --only LIST     engines to measure, comma-separated (default: all five)
  --json FILE     also write every figure as JSON`,
);

const calls = intOption(script, opts, 'calls');
const coldCalls = intOption(script, opts, 'cold-calls');
const poolSize = intOption(script, opts, 'pool');
const kinds = (opts.only ?? 'podman,podman-service,docker,docker-tls,docker-ssh').split(',');
const remoteScript = path.join(benchDir, '..', 'tests', 'remote', 'remote-engine');
const stateRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'csm-bench-remote-'));

const PANDAS = `import pandas as pd
df = pd.DataFrame({"region": ["north", "south", "east", "west"] * 250, "sales": range(1000)})
print(df.groupby("region")["sales"].sum().to_string())
`;
const PANDAS_OUTPUT = 'region\neast     125000\nnorth    124500\nsouth    124750\nwest     125250\n';

function procStatus(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name) => text.match(new RegExp(`^${name}:\\s+(\\S+)`, 'm'))?.[1] ?? null;
    return { name: field('Name'), ppid: Number(field('PPid')), rssKb: Number(field('VmRSS') ?? 0) };
  } catch {
    return null;
  }
}

function allProcesses() {
  const list = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const status = procStatus(Number(entry));
    if (!status) continue;
    let argv = [];
    try {
      argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'latin1').split('\0').filter(Boolean);
    } catch {
      continue;
    }
    list.push({ pid: Number(entry), ...status, argv });
  }
  return list;
}

// Every process below `root` (not `root` itself).
function descendants(root, processes) {
  const found = [];
  let frontier = [root];
  while (frontier.length) {
    const children = processes.filter((p) => frontier.includes(p.ppid));
    found.push(...children);
    frontier = children.map((p) => p.pid);
  }
  return found;
}

function engineEnv(kind) {
  if (kind === 'podman' || kind === 'docker') return {};
  const dir = path.join(stateRoot, kind);
  progress(`${kind}: starting (tests/remote/remote-engine)`);
  execFileSync(remoteScript, ['start', kind, dir], { stdio: ['ignore', 'ignore', 'inherit'] });
  const env = {};
  for (const line of fs.readFileSync(path.join(dir, 'env'), 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return env;
}

function stopEngine(kind) {
  if (kind === 'podman' || kind === 'docker') return;
  execFileSync(remoteScript, ['stop', kind, path.join(stateRoot, kind)], { stdio: 'ignore' });
}

function engineCli(kind, env, args) {
  return execFileSync(kind.startsWith('podman') ? 'podman' : 'docker', args, {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
}

async function measure(kind) {
  const engine = kind.startsWith('podman') ? 'podman' : 'docker';
  const env = { ...engineEnv(kind), CODE_SANDBOX_EGRESS: 'none' };
  const result = { kind };
  try {
    const pooled = await startServer({ server: opts.server, engine, args: ['--verbose', '--pool', String(poolSize)], env });
    const full = 2 * poolSize;
    await waitPoolFull(pooled, full, 180_000);
    await sleep(1000);
    // Host-side memory of the idle, full pool.
    const processes = allProcesses();
    const clients = descendants(pooled.pid, processes);
    const ids = engineCli(kind, env, ['ps', '-q', '--no-trunc', '--filter', `label=code-sandbox.pid=${pooled.pid}`])
      .split('\n')
      .filter(Boolean);
    const engineSide = processes.filter((p) => ids.some((id) => p.argv.some((a) => a.includes(id))));
    const sum = (list) => list.reduce((total, p) => total + p.rssKb, 0);
    result.containers = ids.length;
    result.clientProcesses = clients.map((p) => p.name);
    result.clientRssKbPerContainer = ids.length ? sum(clients) / ids.length : 0;
    result.engineSideRssKbPerContainer = ids.length ? sum(engineSide) / ids.length : 0;
    progress(`${kind}: ${ids.length} pooled containers, client-side ${(result.clientRssKbPerContainer / 1000).toFixed(1)} MB each`);

    const printSamples = [];
    const pandasSamples = [];
    for (let i = 0; i < calls; i += 1) {
      await waitPoolFull(pooled, full, 180_000);
      printSamples.push((await call(pooled, 'print(1)', '1\n', { label: `${kind} pooled` })).ms);
      await waitPoolFull(pooled, full, 180_000);
      pandasSamples.push((await call(pooled, PANDAS, PANDAS_OUTPUT, { label: `${kind} pandas` })).ms);
    }
    result.warm = pooled.warm;
    result.pooled = summarize(printSamples);
    result.pandas = summarize(pandasSamples);
    await closeServer(pooled);

    const cold = await startServer({ server: opts.server, engine, args: ['--verbose', '--pool', '0'], env });
    const coldSamples = [];
    for (let i = 0; i < coldCalls; i += 1)
      coldSamples.push((await call(cold, 'print(1)', '1\n', { label: `${kind} cold` })).ms);
    result.cold = summarize(coldSamples);
    await closeServer(cold);
  } finally {
    stopEngine(kind);
  }
  return result;
}

const server = identifyServer(opts.server);
const results = [];
for (const kind of kinds) results.push(await measure(kind));

const mb = (kb) => (kb / 1000).toFixed(1);
const ms = (s) => `${s.p50.toFixed(1)} (${s.min.toFixed(1)}..${s.max.toFixed(1)})`;
const out = [];
out.push(`code-sandbox-mcp remote engines: ${os.cpus()[0].model}, ${os.cpus().length} cores, kernel ${os.release()}`);
out.push(`server: ${server.path} (${server.buildType} build, commit ${server.commit}, sha256 ${server.sha256})`);
out.push(`load average at the end: ${loadText()}; ${calls} pooled calls of each kind, ${coldCalls} cold; pool ${poolSize} per language`);
out.push('');
out.push('engine          pooled print(1) ms p50 (min..max)  pooled pandas ms p50        cold print(1) ms p50         client MB/container  engine-side MB/container');
for (const r of results) {
  out.push(
    `${r.kind.padEnd(16)}${ms(r.pooled).padEnd(35)}${ms(r.pandas).padEnd(28)}${ms(r.cold).padEnd(29)}${mb(r.clientRssKbPerContainer).padEnd(21)}${mb(r.engineSideRssKbPerContainer)}`,
  );
}
out.push('');
for (const r of results)
  out.push(`${r.kind}: ${r.containers} pooled containers; processes the server keeps: ${r.clientProcesses.join(', ') || 'none'}; warm calls ${r.warm}`);
console.log(out.join('\n'));
if (opts.json) fs.writeFileSync(opts.json, JSON.stringify({ server, results }, null, 2));
fs.rmSync(stateRoot, { recursive: true, force: true });
