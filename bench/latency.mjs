#!/usr/bin/env node
// Latency, throughput, memory and start-up of code-sandbox-mcp, measured from the outside: the
// official MCP TypeScript SDK client launches the real server over stdio, as an MCP client would,
// and every figure is a wall-clock time around an await (or a /proc reading).
//
// Series (see README.md): pooled (warm, refilled between calls), cold (--pool 0), a replay of the
// reference project's per-call engine sequence, the bare `ENGINE run --rm` floor, a burst of
// concurrent calls, sequential throughput without waiting for refills, memory (server and the
// host-side processes of the idle pool), and the time from spawn to the `initialize` result.
//
// Usage: node latency.mjs [--server PATH] [--engine podman|docker] [--calls N] [--json FILE]
//        [--replay-calls N] [--throughput-calls N] [--burst N] [--starts N] [--log-dir DIR]

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  benchDir,
  defaultPythonImage,
  fail,
  identifyServer,
  intOption,
  loadSdk,
  loadText as load,
  now,
  parseOptions,
  progress,
  run,
  sleep,
  startServer as startMcpServer,
  summarize,
  waitPoolFull as waitPoolHolds,
  waitReadyLines,
} from './lib/mcp-bench.mjs';

// ---------------------------------------------------------------------------------------------
// Options

const script = 'latency.mjs';
const opts = parseOptions(
  script,
  {
    calls: { type: 'string', default: '50' },
    'replay-calls': { type: 'string', default: '5' },
    'throughput-calls': { type: 'string', default: '100' },
    burst: { type: 'string', default: '8' },
    starts: { type: 'string', default: '5' },
    pool: { type: 'string', default: '2' },
    image: { type: 'string' },
    'log-dir': { type: 'string' },
  },
  `Usage: node latency.mjs [options]
  --server PATH           code-sandbox-mcp to launch (default: ../build/bin/code-sandbox-mcp)
  --engine podman|docker  container engine, for the server and the replay/floor (default podman)
  --calls N               calls per latency series: pooled, cold, floor (default 50)
  --replay-calls N        calls of the reference replay, ~10 s each (default 5)
  --throughput-calls N    sequential calls of the throughput series (default 100)
  --burst N               concurrent calls of the burst (default 8)
  --starts N              server starts per start-up series (default 5)
  --pool N                pool size per language of the pooled server (default 2)
  --image IMAGE           Python image of the replay and the floor (default: the server's)
  --json FILE             also write every figure and sample as JSON
  --log-dir DIR           keep each server's stderr (--verbose), with ms since spawn`,
);

const engine = opts.engine;
const serverBinary = opts.server;
const positive = (name) => intOption(script, opts, name);
const calls = positive('calls');
const replayCalls = positive('replay-calls');
const throughputCalls = positive('throughput-calls');
const burstSize = positive('burst');
const starts = positive('starts');
const poolSize = positive('pool');
const fullPool = 2 * poolSize; // Python and JavaScript each
const image = opts.image ?? defaultPythonImage(engine);
const logDir = opts['log-dir'] ? path.resolve(opts['log-dir']) : null;
if (logDir) fs.mkdirSync(logDir, { recursive: true });

const die = (message) => fail(script, message);

// The SDK (bench/node_modules, else tests/e2e's copy): see lib/mcp-bench.mjs.
let sdk;
try {
  sdk = loadSdk();
} catch (error) {
  die(error.message);
}

// ---------------------------------------------------------------------------------------------
// Small helpers

function procStatus(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name) => {
      const match = text.match(new RegExp(`^${name}:\\s+(\\S+)`, 'm'));
      return match ? match[1] : null;
    };
    return { name: field('Name'), state: field('State'), ppid: Number(field('PPid')), rssKb: Number(field('VmRSS') ?? 0) };
  } catch {
    return null;
  }
}

function pssKb(pid) {
  try {
    const match = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').match(/^Pss:\s+(\d+)/m);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

const alive = (pid) => {
  const status = procStatus(pid);
  return status !== null && status.state !== 'Z';
};

const mb = (kb) => (kb * 1024) / 1e6; // kB of /proc (KiB) to MB (10^6 bytes)

// ---------------------------------------------------------------------------------------------
// The server under test

const tool = { name: 'run_python_code', arguments: { code: 'print(1)' } };
let serverCount = 0;

async function startServer(pool) {
  const args = ['--engine', engine, '--pool', String(pool), '--verbose'];
  const lines = [];
  const logFile = logDir ? fs.createWriteStream(path.join(logDir, `server-${++serverCount}-pool${pool}.log`)) : null;
  const server = await startMcpServer({
    server: serverBinary,
    engine,
    args,
    onLine: (line, t) => {
      lines.push({ t, line });
      logFile?.write(`${t.toFixed(1).padStart(9)} ${line}\n`);
    },
    listTools: false,
  });
  server.pool = pool;
  server.lines = lines;
  server.logFile = logFile;
  const transport = server.transport;
  // When the tools/call request is handed to the pipe and when its response is parsed: splits a
  // call's time into the client's share and the server's (plus the pipes').
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (message.method === 'tools/call') server.sentAt = now();
    return send(message, options);
  };
  const onmessage = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ('result' in message || 'error' in message) server.receivedAt = now();
    return onmessage(message, extra);
  };
  // As MCP clients do before calling: the SDK then also checks every structuredContent against
  // the tool's outputSchema.
  await server.client.listTools();
  return server;
}

const waitPoolFull = (server) => waitPoolHolds(server, fullPool);

async function callOnce(server, parts = null) {
  const start = now();
  const result = await server.client.callTool(tool);
  const end = now();
  if (result.isError || result.structuredContent?.stdout !== '1\n') {
    throw new Error(`print(1) failed: ${JSON.stringify(result)}`);
  }
  // Only meaningful for one call at a time.
  parts?.push({
    client: server.sentAt - start + (end - server.receivedAt),
    server: server.receivedAt - server.sentAt,
    program: result.structuredContent.duration_ms,
  });
  return end - start;
}

function summarizeParts(parts) {
  return {
    clientP50: summarize(parts.map((p) => p.client)).p50,
    serverP50: summarize(parts.map((p) => p.server)).p50,
    programP50: summarize(parts.map((p) => p.program)).p50,
  };
}

async function containersOf(serverPid) {
  const { stdout } = await run(engine, [
    'ps', '-a', '--no-trunc', '--filter', `label=code-sandbox.pid=${serverPid}`, '--format', '{{.ID}} {{.Names}}',
  ]);
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [id, name] = line.trim().split(/\s+/);
      return { id, name };
    });
}

async function stopServer(server) {
  const start = now();
  await server.client.close(); // ends stdin; the SDK sends SIGTERM after 2 s, SIGKILL after 4 s
  while (alive(server.pid) && now() - start < 15_000) await sleep(20);
  const exitMs = now() - start;
  let left = await containersOf(server.pid);
  while (left.length > 0 && now() - start < 30_000) {
    await sleep(200);
    left = await containersOf(server.pid);
  }
  if (left.length > 0) {
    console.error(`warning: server ${server.pid} left ${left.length} container(s); removing them`);
    await run(engine, ['rm', '-f', ...left.map((c) => c.name)]).catch(() => {});
  }
  server.logFile?.end();
  return { exitMs, goneMs: now() - start };
}

// ---------------------------------------------------------------------------------------------
// Host-side cost of the pool: every process in the host's PID namespace (so not the containers'
// own processes) whose command line names one of the server's containers (conmon for podman,
// containerd-shim for docker), plus any child process of the server (an engine CLI left running).

async function hostSideProcesses(server) {
  const containers = await containersOf(server.pid);
  const selfNs = fs.readlinkSync('/proc/self/ns/pid');
  const found = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    try {
      if (fs.readlinkSync(`/proc/${pid}/ns/pid`) !== selfNs) continue;
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').filter(Boolean);
      if (argv.length === 0) continue;
      const status = procStatus(pid);
      if (!status) continue;
      const owner = containers.find((c) => argv.some((a) => a.includes(c.id) || a === c.name));
      const child = status.ppid === server.pid;
      if (!owner && !child) continue;
      found.push({
        pid,
        comm: status.name,
        container: owner?.name ?? null,
        childOfServer: child,
        rssKb: status.rssKb,
        pssKb: pssKb(pid),
      });
    } catch {
      // The process ended meanwhile.
    }
  }
  // Podman knows each container's conmon: check that the scan found exactly those.
  let conmonCheck = null;
  if (engine === 'podman' && containers.length > 0) {
    const { stdout } = await run('podman', ['inspect', '--format', '{{.State.ConmonPid}}', ...containers.map((c) => c.id)]);
    const conmonPids = stdout.split('\n').filter(Boolean).map(Number);
    conmonCheck = conmonPids.every((pid) => found.some((p) => p.pid === pid)) ? 'all found' : `missing some of ${conmonPids}`;
  }
  const totalRssKb = found.reduce((sum, p) => sum + p.rssKb, 0);
  const totalPssKb = found.reduce((sum, p) => sum + (p.pssKb ?? 0), 0);
  return {
    containers: containers.length,
    processes: found,
    engineChildren: found.filter((p) => p.childOfServer).length,
    conmonCheck,
    totalRssKb,
    totalPssKb,
    perContainerRssKb: containers.length ? totalRssKb / containers.length : 0,
    perContainerPssKb: containers.length ? totalPssKb / containers.length : 0,
  };
}

// ---------------------------------------------------------------------------------------------
// The series

const results = {
  machine: null,
  options: { engine, calls, replayCalls, throughputCalls, burstSize, starts, poolSize, image, server: serverBinary },
  series: {},
  memory: {},
  startup: {},
  load: {},
};

const serverIdentity = () => identifyServer(serverBinary);

async function machineDescription() {
  const cpu = fs.readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.+)$/m)?.[1] ?? 'unknown';
  const debian = fs.existsSync('/etc/debian_version') ? fs.readFileSync('/etc/debian_version', 'utf8').trim() : 'n/a';
  const engineVersion = (await run(engine, ['version', '--format', engine === 'podman' ? '{{.Client.Version}}' : '{{.Server.Version}}']).catch(() => ({ stdout: '?' }))).stdout.trim();
  return {
    cpu,
    cores: os.cpus().length,
    memoryGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
    kernel: `${os.release()}`,
    debian,
    engine: `${engine} ${engineVersion}`,
    node: process.version,
    sdk: sdk.version,
  };
}

// h. start-up: spawn to `initialize` result, with and without the pool.
async function startupSeries(pool) {
  const initMs = [];
  const poolFullMs = [];
  for (let i = 0; i < starts; i++) {
    const server = await startServer(pool);
    initMs.push(server.initMs);
    if (pool > 0) {
      await waitReadyLines(server, fullPool);
      poolFullMs.push(server.lines.filter((l) => l.line.includes(' ready in all'))[fullPool - 1].t);
    } else {
      await sleep(300); // let the stale-container sweep finish before closing
    }
    await stopServer(server);
  }
  return { initMs, init: summarize(initMs), poolFullMs, poolFull: poolFullMs.length ? summarize(poolFullMs) : null };
}

// d. The bare engine: until it exits (the container removed: the floor of the targets), and until
// the program's output has arrived (the server answers at that point and removes the container
// off the call's path, so this is the fairer floor of the two).
function floorOnce() {
  return new Promise((resolve, reject) => {
    const start = now();
    let output = '';
    let outputAt = null;
    const child = spawn(engine, ['run', '--rm', image, 'python3', '-c', 'print(1)'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (outputAt === null && output === '1\n') outputAt = now();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const exitAt = now();
      if (code !== 0 || output !== '1\n') reject(new Error(`floor: exit ${code}, printed ${JSON.stringify(output)}`));
      else resolve({ total: exitAt - start, output: outputAt - start });
    });
  });
}

async function floorSeries() {
  const total = [];
  const output = [];
  for (let i = 0; i < calls; i++) {
    const sample = await floorOnce();
    total.push(sample.total);
    output.push(sample.output);
  }
  return { total, output };
}

// c. The reference project's per call (llm-sandbox): a long-running container is created and
// started, the code is written to a host file and copied in, run with exec, then the container
// is stopped with the engine's default 10 s grace (its PID 1 ignores SIGTERM) and removed.
async function replaySeries() {
  const samples = [];
  const steps = [];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'csm-bench-'));
  const codeFile = path.join(tmp, 'code.py');
  try {
    for (let i = 0; i < replayCalls; i++) {
      const name = `csm-bench-replay-${process.pid}-${i}`;
      const step = {};
      const timed = async (label, fn) => {
        const t = now();
        const out = await fn();
        step[label] = now() - t;
        return out;
      };
      const start = now();
      try {
        await timed('create', () => run(engine, ['create', '--name', name, image, 'tail', '-f', '/dev/null']));
        await timed('start', () => run(engine, ['start', name]));
        await timed('write', () => fs.promises.writeFile(codeFile, 'print(1)'));
        await timed('cp', () => run(engine, ['cp', codeFile, `${name}:/tmp/code.py`]));
        const { stdout } = await timed('exec', () => run(engine, ['exec', name, 'python3', '-u', '/tmp/code.py']));
        if (stdout !== '1\n') throw new Error(`replay printed ${JSON.stringify(stdout)}`);
        await timed('stop', () => run(engine, ['stop', name]));
        await timed('rm', () => run(engine, ['rm', name]));
      } catch (error) {
        await run(engine, ['rm', '-f', name]).catch(() => {});
        throw error;
      }
      samples.push(now() - start);
      steps.push(step);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const stepSummary = {};
  for (const key of Object.keys(steps[0])) stepSummary[key] = summarize(steps.map((s) => s[key])).p50;
  return { samples, steps, stepP50: stepSummary };
}

async function main() {
  results.machine = await machineDescription();
  results.server = serverIdentity();
  progress(`machine: ${JSON.stringify(results.machine)}`);
  progress(`server: ${JSON.stringify(results.server)}`);
  progress(`SDK ${sdk.version} from ${path.relative(path.join(benchDir, '..'), path.dirname(sdk.from)) || '.'}`);

  // Nothing of ours may be running, and the images must be there.
  await run(engine, ['image', 'inspect', image]).catch(() => die(`image ${image} is missing in ${engine}`));

  // h. start-up
  results.load.startup = load();
  progress(`start-up: ${starts} starts with --pool 0`);
  results.startup.pool0 = await startupSeries(0);
  progress(`start-up: ${starts} starts with --pool ${poolSize}`);
  results.startup.pooled = await startupSeries(poolSize);

  // a, e, f and g on one pooled server.
  results.load.pooled = load();
  progress(`pooled: starting the server with --pool ${poolSize}`);
  const pooled = await startServer(poolSize);
  await waitReadyLines(pooled, fullPool);
  await sleep(2000); // idle: the pool is full and nothing is happening
  results.memory.serverIdlePooledKb = procStatus(pooled.pid).rssKb;
  results.memory.serverIdlePooledPssKb = pssKb(pooled.pid);
  results.memory.hostSidePool = await hostSideProcesses(pooled);

  progress(`pooled: ${calls} calls, each after the replacement is ready`);
  const pooledSamples = [];
  const pooledParts = [];
  const warmBefore = pooled.warm;
  for (let k = 1; k <= calls; k++) {
    pooledSamples.push(await callOnce(pooled, pooledParts));
    await waitReadyLines(pooled, fullPool + k);
  }
  results.series.pooled = {
    samples: pooledSamples,
    ...summarize(pooledSamples),
    warm: pooled.warm - warmBefore,
    parts: pooledParts,
    ...summarizeParts(pooledParts),
  };

  progress(`burst: ${burstSize} concurrent calls`);
  await waitPoolFull(pooled);
  {
    const warm0 = pooled.warm;
    const cold0 = pooled.cold;
    const start = now();
    const samples = await Promise.all(Array.from({ length: burstSize }, () => callOnce(pooled)));
    const wallMs = now() - start;
    results.series.burst = { samples, ...summarize(samples), wallMs, warm: pooled.warm - warm0, cold: pooled.cold - cold0 };
  }

  progress(`throughput: ${throughputCalls} sequential calls, no waiting for refills`);
  await waitPoolFull(pooled);
  {
    const warm0 = pooled.warm;
    const cold0 = pooled.cold;
    const samples = [];
    const start = now();
    for (let i = 0; i < throughputCalls; i++) samples.push(await callOnce(pooled));
    const wallMs = now() - start;
    results.series.throughput = {
      samples,
      ...summarize(samples),
      wallMs,
      callsPerSecond: (throughputCalls * 1000) / wallMs,
      warm: pooled.warm - warm0,
      cold: pooled.cold - cold0,
    };
  }
  results.memory.serverAfterRunsKb = procStatus(pooled.pid).rssKb;
  await waitPoolFull(pooled);
  await sleep(2000);
  results.memory.serverAfterRunsIdleKb = procStatus(pooled.pid).rssKb;
  results.memory.serverAfterRunsIdlePssKb = pssKb(pooled.pid);
  results.memory.hostSidePoolAfterRuns = await hostSideProcesses(pooled);
  await stopServer(pooled);

  // b. cold, and the --pool 0 memory baseline.
  results.load.cold = load();
  progress(`cold: ${calls} calls with --pool 0`);
  const cold = await startServer(0);
  await sleep(2000);
  results.memory.serverIdlePool0Kb = procStatus(cold.pid).rssKb;
  results.memory.hostSidePool0 = await hostSideProcesses(cold);
  const coldSamples = [];
  const coldParts = [];
  for (let i = 0; i < calls; i++) coldSamples.push(await callOnce(cold, coldParts));
  results.series.cold = { samples: coldSamples, ...summarize(coldSamples), cold: cold.cold, parts: coldParts, ...summarizeParts(coldParts) };
  results.memory.serverAfterColdRunsKb = procStatus(cold.pid).rssKb;
  await stopServer(cold);

  // d. floor
  results.load.floor = load();
  progress(`floor: ${calls} × ${engine} run --rm ${image} python3 -c 'print(1)'`);
  const floor = await floorSeries();
  results.series.floor = { samples: floor.total, ...summarize(floor.total) };
  results.series.floorOutput = { samples: floor.output, ...summarize(floor.output) };

  // c. reference replay
  results.load.replay = load();
  progress(`reference replay: ${replayCalls} calls (create, start, cp, exec, stop with 10 s grace, rm)`);
  const replay = await replaySeries();
  results.series.replay = { ...replay, ...summarize(replay.samples) };
  results.load.end = load();
  results.serverAtEnd = serverIdentity();

  report();
  if (opts.json) {
    fs.writeFileSync(opts.json, `${JSON.stringify(results, null, 2)}\n`);
    progress(`figures written to ${opts.json}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The table

function report() {
  const s = results.series;
  const m = results.memory;
  const f = (v, d = 1) => (v === null || v === undefined ? 'n/a' : v.toFixed(d));
  const out = [];
  const row = (cells, widths) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  const mc = results.machine;

  out.push(`code-sandbox-mcp benchmark: ${mc.engine}, ${mc.cpu}, ${mc.cores} cores, ${mc.memoryGiB} GiB, kernel ${mc.kernel}, Debian ${mc.debian}, Node ${mc.node}, MCP SDK ${mc.sdk}`);
  const sv = results.server;
  out.push(`server: ${sv.path} (${sv.buildType} build, commit ${sv.commit}, sha256 ${sv.sha256}, built ${sv.modified})`);
  if (results.serverAtEnd.sha256 !== sv.sha256) {
    out.push(`WARNING: the server binary changed during the run (now sha256 ${results.serverAtEnd.sha256}, built ${results.serverAtEnd.modified}): run again`);
  }
  out.push(`load average (1/5/15 min) at start-up series ${results.load.startup}; pooled ${results.load.pooled}; cold ${results.load.cold}; floor ${results.load.floor}; replay ${results.load.replay}; end ${results.load.end}`);
  out.push('');
  out.push('Latency of print(1), end to end (ms)');
  const w = [54, 5, 8, 8, 8, 8];
  out.push(row(['series', 'n', 'min', 'p50', 'p95', 'max'], w));
  const line = (label, x) => out.push(row([label, x.n, f(x.min), f(x.p50), f(x.p95), f(x.max)], w));
  line(`pooled (--pool ${poolSize}, refilled between calls; ${s.pooled.warm} warm)`, s.pooled);
  line('cold (--pool 0)', s.cold);
  line(`reference replay (create..rm, 10 s stop)`, s.replay);
  line(`floor: ${engine} run --rm IMAGE python3 -c, to exit`, s.floor);
  line(`  same, until its output arrived (informative)`, s.floorOutput);
  line(`burst: ${burstSize} concurrent, per call (${s.burst.warm} warm)`, s.burst);
  line(`throughput: ${throughputCalls} sequential (${s.throughput.warm} warm)`, s.throughput);
  out.push('');
  out.push(`burst: ${burstSize} concurrent calls done in ${f(s.burst.wallMs)} ms (${s.burst.warm} warm, ${s.burst.cold} cold)`);
  out.push(`throughput: ${throughputCalls} sequential calls in ${f(s.throughput.wallMs / 1000, 2)} s = ${f(s.throughput.callsPerSecond, 2)} calls/s (${s.throughput.warm} warm, ${s.throughput.cold} cold)`);
  const steps = Object.entries(s.replay.stepP50).map(([k, v]) => `${k} ${f(v, 0)}`).join(', ');
  out.push(`reference replay, p50 per step (ms): ${steps}`);
  out.push(`pooled, p50 of each share (ms): client (SDK) ${f(s.pooled.clientP50, 2)}, server and pipes ${f(s.pooled.serverP50, 2)}, program as the launcher timed it ${f(s.pooled.programP50, 0)}`);
  out.push(`cold, p50 of each share (ms): client (SDK) ${f(s.cold.clientP50, 2)}, server and pipes ${f(s.cold.serverP50, 2)}, program as the launcher timed it ${f(s.cold.programP50, 0)}`);
  out.push('');
  out.push('Memory (MB = 10^6 bytes; RSS counts shared library pages in full, PSS shares them out)');
  out.push(`server RSS idle, --pool ${poolSize} (pool full):   ${f(mb(m.serverIdlePooledKb))} MB (PSS ${f(mb(m.serverIdlePooledPssKb))} MB)`);
  out.push(`server RSS idle, --pool 0:                ${f(mb(m.serverIdlePool0Kb))} MB`);
  out.push(`server RSS right after all pooled runs:   ${f(mb(m.serverAfterRunsKb))} MB; idle again, pool full: ${f(mb(m.serverAfterRunsIdleKb))} MB (PSS ${f(mb(m.serverAfterRunsIdlePssKb))} MB)`);
  out.push(`server RSS after ${calls} cold runs (--pool 0): ${f(mb(m.serverAfterColdRunsKb))} MB`);
  const hp = m.hostSidePool;
  const procs = hp.processes.map((p) => `${p.comm}[${p.pid}] ${f(mb(p.rssKb), 2)}`).join(', ');
  out.push(`host-side processes of the idle pool (${hp.containers} containers): ${hp.processes.length} processes, ${hp.engineChildren} engine CLI children of the server${hp.conmonCheck ? `, ConmonPid check: ${hp.conmonCheck}` : ''}`);
  out.push(`  ${procs}`);
  out.push(`  total RSS ${f(mb(hp.totalRssKb), 2)} MB = ${f(mb(hp.perContainerRssKb), 2)} MB per container (PSS ${f(mb(hp.totalPssKb), 2)} MB = ${f(mb(hp.perContainerPssKb), 2)} MB per container)`);
  const ha = m.hostSidePoolAfterRuns;
  out.push(`  after the runs, idle again: ${ha.processes.length} processes for ${ha.containers} containers, ${f(mb(ha.perContainerRssKb), 2)} MB RSS per container`);
  const h0 = m.hostSidePool0;
  out.push(`host-side processes with --pool 0, idle: ${h0.processes.length} (${h0.containers} containers)`);
  out.push('');
  const st = results.startup;
  out.push(`Start-up: spawn to the initialize result (ms, ${starts} starts each)`);
  out.push(`--pool 0: median ${f(st.pool0.init.p50)} (min ${f(st.pool0.init.min)}, max ${f(st.pool0.init.max)})`);
  out.push(`--pool ${poolSize}: median ${f(st.pooled.init.p50)} (min ${f(st.pooled.init.min)}, max ${f(st.pooled.init.max)}); pool full ${fullPool}/${fullPool} after median ${f(st.pooled.poolFull.p50, 0)} ms`);
  out.push('');

  const ratios = {
    coldVsPooled: s.cold.p50 / s.pooled.p50,
    replayVsPooled: s.replay.p50 / s.pooled.p50,
    coldVsFloor: s.cold.p50 / s.floor.p50,
  };
  results.ratios = ratios;
  const checks = [
    ['pooled p50', `${f(s.pooled.p50)} ms`, '<= 15 ms', s.pooled.p50 <= 15],
    ['pooled p95', `${f(s.pooled.p95)} ms`, '<= 40 ms', s.pooled.p95 <= 40],
    ['cold p50 / pooled p50', `${f(ratios.coldVsPooled)}x`, '>= 20x', ratios.coldVsPooled >= 20],
    ['replay p50 / pooled p50', `${f(ratios.replayVsPooled, 0)}x`, '>= 300x', ratios.replayVsPooled >= 300],
    ['cold p50 / floor p50', `${f(ratios.coldVsFloor, 2)}x`, '<= 1.3x', ratios.coldVsFloor <= 1.3],
    [`server idle RSS, --pool ${poolSize}`, `${f(mb(m.serverIdlePooledKb))} MB`, '<= 30 MB', mb(m.serverIdlePooledKb) <= 30],
    ['server idle RSS, --pool 0', `${f(mb(m.serverIdlePool0Kb))} MB`, '<= 30 MB', mb(m.serverIdlePool0Kb) <= 30],
    [`initialize after start, --pool ${poolSize}`, `${f(st.pooled.init.p50)} ms`, '<= 100 ms', st.pooled.init.p50 <= 100],
    ['initialize after start, --pool 0', `${f(st.pool0.init.p50)} ms`, '<= 100 ms', st.pool0.init.p50 <= 100],
    ['host-side RSS per idle pooled container', `${f(mb(hp.perContainerRssKb), 2)} MB`, '<= 5 MB', mb(hp.perContainerRssKb) <= 5],
  ];
  results.targets = checks.map(([name, value, target, pass]) => ({ name, value, target, pass }));
  out.push(`Targets${engine === 'podman' ? '' : ' (set for podman; docker figures are informative)'}`);
  const tw = [40, 12, 10, 6];
  out.push(row(['target', 'value', 'target', ''], tw));
  for (const [name, value, target, pass] of checks) out.push(row([name, value, target, pass ? 'PASS' : 'FAIL'], tw));
  ratios.coldVsFloorOutput = s.cold.p50 / s.floorOutput.p50;
  ratios.throughputVsPooled = s.throughput.p50 / s.pooled.p50;
  out.push(`informative: cold p50 / floor-until-output p50 = ${f(ratios.coldVsFloorOutput, 2)}x; cold p95 / floor p95 = ${f(s.cold.p95 / s.floor.p95, 2)}x`);
  console.log(out.join('\n'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
