#!/usr/bin/env node
// Issue 16, "the pool under back-to-back load": calls that come back to back (an agent loop) or
// together (parallel tool calls), on a pooled server driven by the official MCP SDK client over
// stdio, beside what the engine itself can do on this machine:
// a. the engine's own container-start rate: `ENGINE run --rm --network none --pull never IMAGE
//    true`, timed to exit, one at a time and two at a time;
// b. print(1) back to back (no pause) from a full pool: p50, p95, calls/s, warm and cold;
// c. the same with issue 16's plot call (pandas, a groupby, a bar chart shown, so it comes back);
// d. bursts of concurrent print(1) calls, 3 s apart, with the server's running Python containers
//    counted after each, then again after an idle wait: does the pool grow, and shrink again?
// e. (issue 33) the pool under steady load: print(1) at a fixed rate (0.5, 1 and 2 calls/s by
//    default), each call started on schedule, from a full pool: p50, p95, warm and cold.
// Every figure carries the load average (1 min) at its start and end. A remote engine: run it
// with the engine CLI's variables (DOCKER_HOST...) set; the server and the engine rows use them.
//
// Usage: node pool-load.mjs [--server PATH] [--engine podman|docker] [--pool N] [--calls N]
//        [--bursts N] [--burst-size N] [--starts N] [--idle-wait-s S] [--settle-ms MS]
//        [--rates R,R...] [--rate-calls N] [--series LIST] [--json FILE]

import fs from 'node:fs';
import os from 'node:os';
import {
  PLOT_OUTPUT,
  call,
  closeServer,
  defaultPythonImage,
  fail,
  identifyServer,
  intOption,
  loadSdk,
  loadText,
  now,
  parseOptions,
  plotProgram,
  progress,
  run,
  runningContainers,
  sleep,
  startServer,
  summarize,
  waitPoolFull,
  waitReadyLines,
} from './lib/mcp-bench.mjs';

const script = 'pool-load.mjs';
const usage = `Usage: node pool-load.mjs [options]
  --server PATH           code-sandbox-mcp to launch (default: ../build/bin/code-sandbox-mcp)
  --engine podman|docker  container engine (default podman)
  --pool N                the server's --pool: ready containers per language (default 2)
  --calls N               back-to-back calls of each of print(1) and the plot call (default 30)
  --bursts N              rounds of concurrent calls (default 5)
  --burst-size N          concurrent print(1) calls per round (default 4)
  --starts N              engine container starts per start-rate series (default 10)
  --idle-wait-s S         idle wait after the bursts before counting the pool again (default 70)
  --settle-ms MS          pause once the pool is full, before a series (default 3000)
  --rates R,R...          steady series: calls per second (default 0.5,1,2)
  --rate-calls N          calls per steady series (default 30)
  --series LIST           which to run, of engine,print,plot,bursts,steady (default all)
  --json FILE             also write every figure and sample as JSON`;
const opts = parseOptions(
  script,
  {
    pool: { type: 'string', default: '2' },
    calls: { type: 'string', default: '30' },
    bursts: { type: 'string', default: '5' },
    'burst-size': { type: 'string', default: '4' },
    starts: { type: 'string', default: '10' },
    'idle-wait-s': { type: 'string', default: '70' },
    // The engine is still tearing down the previous series' containers when the pool is full.
    'settle-ms': { type: 'string', default: '3000' },
    rates: { type: 'string', default: '0.5,1,2' },
    'rate-calls': { type: 'string', default: '30' },
    series: { type: 'string', default: 'engine,print,plot,bursts,steady' },
  },
  usage,
);
const engine = opts.engine;
const poolSize = intOption(script, opts, 'pool');
const calls = intOption(script, opts, 'calls');
const bursts = intOption(script, opts, 'bursts');
const burstSize = intOption(script, opts, 'burst-size');
const starts = intOption(script, opts, 'starts');
const idleWaitS = intOption(script, opts, 'idle-wait-s', 0);
const settleMs = intOption(script, opts, 'settle-ms', 0);
const rateCalls = intOption(script, opts, 'rate-calls');
const rates = opts.rates.split(',').map(Number);
if (rates.some((r) => !(r > 0))) fail(script, `--rates: positive numbers, comma-separated (got ${opts.rates})`);
const wanted = new Set(opts.series.split(','));
const fullPool = 2 * poolSize; // Python and JavaScript each
const image = defaultPythonImage(engine);
const PLOT = plotProgram('plt.show()');
const BETWEEN_BURSTS_MS = 3000;
const POOL_FULL_TIMEOUT_MS = 180_000;

const load1 = () => os.loadavg()[0];
const firstLine = (error) => String(error?.message ?? error).split('\n')[0].slice(0, 300);

// ---------------------------------------------------------------------------------------------
// a. The engine's own container starts, no server involved.

async function startContainerOnce() {
  const start = now();
  await run(engine, ['run', '--rm', '--network', 'none', '--pull', 'never', image, 'true']);
  return now() - start;
}

// `starts` containers, `concurrency` at a time; the rate is containers that ran per second of wall.
async function engineStartSeries(concurrency) {
  const loadStart = load1();
  const samples = [];
  const errors = [];
  let next = 0;
  const start = now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, starts) }, async () => {
      while (next < starts) {
        next += 1;
        try {
          samples.push(await startContainerOnce());
        } catch (error) {
          errors.push(firstLine(error));
        }
      }
    }),
  );
  const wallMs = now() - start;
  return { ...summarize(samples), samples, wallMs, perSecond: (samples.length * 1000) / wallMs, failures: errors.length, errors, load: [loadStart, load1()] };
}

// ---------------------------------------------------------------------------------------------
// b, c, d. Calls on the pooled server. A failed call is counted, not fatal: failing under load is
// one of the things measured.

async function tryCall(server, code, expected, label) {
  try {
    const { ms, images } = await call(server, code, expected, { label });
    return { ms, images };
  } catch (error) {
    return { error: firstLine(error) };
  }
}

function tally(outcomes, server, before, wallMs, loadStart) {
  const done = outcomes.filter((o) => !('error' in o));
  const samples = done.map((o) => o.ms);
  return {
    ...summarize(samples),
    samples,
    wallMs,
    perSecond: (samples.length * 1000) / wallMs,
    warm: server.warm - before.warm,
    cold: server.cold - before.cold,
    failures: outcomes.length - done.length,
    errors: outcomes.filter((o) => 'error' in o).map((o) => o.error).slice(0, 5),
    images: done.map((o) => o.images),
    load: [loadStart, load1()],
  };
}

async function backToBackSeries(server, label, code, expected) {
  const loadStart = load1();
  const before = { warm: server.warm, cold: server.cold };
  const outcomes = [];
  const start = now();
  for (let k = 0; k < calls; k++) outcomes.push(await tryCall(server, code, expected, label));
  return tally(outcomes, server, before, now() - start, loadStart);
}

// `rateCalls` calls of print(1), the k-th started at k / rate seconds (whether or not the one
// before has ended): an agent that calls now and then, not a loop.
async function steadySeries(server, rate) {
  const loadStart = load1();
  const before = { warm: server.warm, cold: server.cold };
  const start = now();
  const pending = [];
  for (let k = 0; k < rateCalls; k++) {
    const due = start + (k * 1000) / rate;
    if (due > now()) await sleep(due - now());
    pending.push(tryCall(server, 'print(1)', '1\n', `steady ${rate}/s`));
  }
  const outcomes = await Promise.all(pending);
  return { ...tally(outcomes, server, before, now() - start, loadStart), rate };
}

async function burstRound(server) {
  const loadStart = load1();
  const before = { warm: server.warm, cold: server.cold };
  const start = now();
  const outcomes = await Promise.all(Array.from({ length: burstSize }, () => tryCall(server, 'print(1)', '1\n', 'burst call')));
  return tally(outcomes, server, before, now() - start, loadStart);
}

// The server's running Python containers: the ready pool, plus any start or run under way.
async function pythonContainers(server) {
  try {
    return (await runningContainers(engine, server.pid, 'python')).length;
  } catch (error) {
    progress(`warning: could not count containers: ${firstLine(error)}`);
    return null;
  }
}

// Waits until the pool is full again, then lets it settle; a pool that never fills is noted, and
// the series runs anyway.
async function untilPoolFull(server, results, before) {
  try {
    await waitPoolFull(server, fullPool, POOL_FULL_TIMEOUT_MS);
  } catch (error) {
    results.warnings.push(`before ${before}: ${firstLine(error)}`);
    progress(`warning: ${firstLine(error)}; measuring anyway`);
  }
  await sleep(settleMs);
}

// ---------------------------------------------------------------------------------------------

async function measure(results) {
  if (wanted.has('engine')) {
    progress(`engine: ${starts} × ${engine} run --rm --network none --pull never ${image} true, one at a time`);
    results.engineSequential = await engineStartSeries(1);
    progress(`engine: the same, two at a time`);
    results.engineConcurrent = await engineStartSeries(2);
  }

  progress(`starting the server (--pool ${poolSize} --verbose)`);
  const server = await startServer({ server: opts.server, engine, args: ['--verbose', '--pool', String(poolSize)] });
  results.serverPid = server.pid;
  try {
    await waitReadyLines(server, fullPool, POOL_FULL_TIMEOUT_MS);
    await sleep(settleMs);

    results.steady = [];
    if (wanted.has('steady')) {
      for (const rate of rates) {
        await untilPoolFull(server, results, `${rate} calls/s`);
        progress(`print(1): ${rateCalls} calls at ${rate}/s`);
        results.steady.push(await steadySeries(server, rate));
      }
    }

    if (wanted.has('print')) {
      await untilPoolFull(server, results, 'print(1) back to back');
      progress(`print(1): ${calls} calls back to back`);
      results.print1 = await backToBackSeries(server, 'print(1)', 'print(1)', '1\n');
    }

    if (wanted.has('plot')) {
      await untilPoolFull(server, results, 'the plot calls');
      progress(`plot call: ${calls} calls back to back`);
      results.plot = await backToBackSeries(server, 'plot call', PLOT, PLOT_OUTPUT);
    }

    if (!wanted.has('bursts')) return;
    await untilPoolFull(server, results, 'the bursts');
    results.pythonContainersBeforeBursts = await pythonContainers(server);
    results.bursts = [];
    for (let round = 1; round <= bursts; round++) {
      progress(`burst ${round}/${bursts}: ${burstSize} concurrent print(1) calls`);
      const r = await burstRound(server);
      r.pythonContainersAfter = await pythonContainers(server);
      await sleep(BETWEEN_BURSTS_MS);
      r.pythonContainersLater = await pythonContainers(server);
      results.bursts.push(r);
    }
    progress(`idle for ${idleWaitS} s`);
    const loadStart = load1();
    await sleep(idleWaitS * 1000);
    results.idle = { waitS: idleWaitS, pythonContainers: await pythonContainers(server), load: [loadStart, load1()] };
  } finally {
    progress('closing the server');
    await closeServer(server).catch((error) => results.warnings.push(`closing the server: ${firstLine(error)}`));
  }
}

// ---------------------------------------------------------------------------------------------
// The table

function report(results) {
  const f = (v, d = 1) => (Number.isFinite(v) ? v.toFixed(d) : 'n/a');
  const cell = (v) => (v === null || v === undefined ? '' : String(v));
  const widths = [50, 4, 8, 8, 7, 5, 5, 5, 8, 11];
  const row = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(' ');
  const loads = (s) => (s?.load ? `${f(s.load[0], 2)}->${f(s.load[1], 2)}` : '');
  const out = [];
  const sv = results.server;
  out.push(`pool-load benchmark: ${results.engineVersion}, ${os.cpus().length} cores, --pool ${poolSize}, SDK ${results.sdk}`);
  out.push(`server: ${sv.path} (${sv.buildType} build, commit ${sv.commit}, sha256 ${sv.sha256}, built ${sv.modified})`);
  if (results.serverAtEnd && results.serverAtEnd.sha256 !== sv.sha256) {
    out.push(`WARNING: the server binary changed during the run (now sha256 ${results.serverAtEnd.sha256}): run again`);
  }
  out.push(`load average (1/5/15 min) at start ${results.loadAtStart}, at end ${results.loadAtEnd}`);
  out.push('');
  out.push(row(['series', 'n', 'p50 ms', 'p95 ms', 'per s', 'warm', 'cold', 'fail', 'py ctrs', 'load 1 min']));
  const series = (label, s, { warmCold = true, containers = '' } = {}) => {
    if (!s) {
      out.push(row([label, '', 'n/a', '', '', '', '', '', '', '']));
      return;
    }
    out.push(row([label, s.n, f(s.p50), f(s.p95), f(s.perSecond, 2), warmCold ? s.warm : '', warmCold ? s.cold : '', s.failures, containers, loads(s)]));
  };
  series(`engine: run --rm ... true, one at a time`, results.engineSequential, { warmCold: false });
  series(`engine: run --rm ... true, two at a time`, results.engineConcurrent, { warmCold: false });
  for (const r of results.steady ?? []) series(`print(1), ${rateCalls} at ${r.rate} calls/s`, r);
  series(`print(1), ${calls} back to back`, results.print1);
  series(`plot call (chart shown), ${calls} back to back`, results.plot);
  for (const [i, r] of (results.bursts ?? []).entries()) {
    series(`burst ${i + 1}: ${burstSize} concurrent print(1)`, r, { containers: `${cell(r.pythonContainersAfter)}/${cell(r.pythonContainersLater)}` });
  }
  if (results.idle) {
    out.push(row([`idle ${results.idle.waitS} s after the bursts`, '', '', '', '', '', '', '', cell(results.idle.pythonContainers), loads(results.idle)]));
  }
  out.push('');
  out.push(`per s: containers/s (engine rows), calls/s over the wall time (others). py ctrs: the server's running Python containers right after the round / ${BETWEEN_BURSTS_MS / 1000} s later (${cell(results.pythonContainersBeforeBursts)} before the first round, --pool ${poolSize} = ${poolSize} ready).`);
  if (results.plot) {
    const withChart = results.plot.images.filter((n) => n > 0).length;
    out.push(`plot calls that brought their chart back as image content: ${withChart}/${results.plot.n}`);
  }
  const seq = results.engineSequential?.perSecond;
  const two = results.engineConcurrent?.perSecond;
  for (const [label, s] of [
    ['print(1)', results.print1],
    ['plot call', results.plot],
  ]) {
    if (!s || !seq) continue;
    out.push(`back to back, ${label}: ${f(s.perSecond, 2)} calls/s = ${f(s.perSecond / seq, 2)}x the engine's ${f(seq, 2)} containers/s one at a time, ${f(s.perSecond / two, 2)}x its ${f(two, 2)} containers/s two at a time`);
  }
  for (const [label, s] of [
    ['engine, one at a time', results.engineSequential],
    ['engine, two at a time', results.engineConcurrent],
    ...(results.steady ?? []).map((r) => [`${r.rate} calls/s`, r]),
    ['print(1)', results.print1],
    ['plot call', results.plot],
    ...(results.bursts ?? []).map((r, i) => [`burst ${i + 1}`, r]),
  ]) {
    if (s?.failures) out.push(`FAILED, ${label}: ${s.failures}, e.g. ${s.errors[0]}`);
  }
  for (const warning of results.warnings) out.push(`warning: ${warning}`);
  if (results.error) out.push(`STOPPED EARLY: ${results.error}`);
  console.log(out.join('\n'));
}

async function main() {
  let sdk;
  try {
    sdk = loadSdk();
  } catch (error) {
    fail(script, error.message);
  }
  await run(engine, ['image', 'inspect', image]).catch((error) => fail(script, `image ${image} is missing in ${engine} (containers/build-images): ${firstLine(error)}`));
  const engineVersion = (await run(engine, ['version', '--format', engine === 'podman' ? '{{.Client.Version}}' : '{{.Server.Version}}']).catch(() => ({ stdout: '?' }))).stdout.trim();
  const results = {
    options: { engine, poolSize, calls, bursts, burstSize, starts, idleWaitS, settleMs, image, rates, rateCalls, series: [...wanted] },
    engineVersion: `${engine} ${engineVersion}`,
    sdk: sdk.version,
    server: identifyServer(opts.server),
    loadAtStart: loadText(),
    warnings: [],
  };
  try {
    await measure(results);
  } catch (error) {
    // What was measured is still reported; the exit status says the run did not finish.
    results.error = firstLine(error);
    process.exitCode = 1;
  }
  results.loadAtEnd = loadText();
  try {
    results.serverAtEnd = identifyServer(opts.server);
  } catch (error) {
    results.serverAtEnd = { sha256: `unreadable (${firstLine(error)})` };
  }
  report(results);
  if (opts.json) {
    fs.writeFileSync(opts.json, `${JSON.stringify(results, null, 2)}\n`);
    progress(`figures written to ${opts.json}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
