#!/usr/bin/env node
// The plot call of issue 16 (a small pandas frame, a groupby, a bar chart saved), end to end
// through the official MCP SDK client over stdio, on a pooled server: p50 with the pool refilled
// between calls, print(1) the same way for comparison, print(1) back to back (no waiting for
// refills), and the memory of the idle pooled Python containers as the engine reports it.
//
// Usage: node plot-call.mjs [--server PATH] [--engine podman|docker] [--calls N]
//        [--back-to-back N] [--pool N] [--settle-ms MS] [--json FILE]

import fs from 'node:fs';
import os from 'node:os';
import {
  PLOT_OUTPUT,
  call,
  idleContainerMemory,
  intOption,
  loadSdk,
  now,
  parseOptions,
  plotProgram,
  progress,
  sleep,
  startServer,
  summarize,
  waitReadyLines,
} from './lib/mcp-bench.mjs';

const script = 'plot-call.mjs';
const opts = parseOptions(
  script,
  {
    calls: { type: 'string', default: '30' },
    'back-to-back': { type: 'string', default: '30' },
    pool: { type: 'string', default: '2' },
    // After a pooled container is ready (its interpreter has imported its modules), how long
    // before the next call: the engine is still tearing down the previous call's container.
    'settle-ms': { type: 'string', default: '3000' },
  },
  'Usage: node plot-call.mjs [--server PATH] [--engine podman|docker] [--calls N]\n' +
    '       [--back-to-back N] [--pool N] [--settle-ms MS] [--json FILE]',
);
const engine = opts.engine;
const calls = intOption(script, opts, 'calls');
const backToBack = intOption(script, opts, 'back-to-back');
const poolSize = intOption(script, opts, 'pool');
const settleMs = intOption(script, opts, 'settle-ms', 0);
const fullPool = 2 * poolSize; // Python and JavaScript each

const PLOT = plotProgram('plt.savefig("/sandbox/sales.png")');

async function main() {
  loadSdk();
  const results = { engine, server: opts.server, loadAtStart: os.loadavg() };
  progress(`starting the server (--pool ${poolSize})`);
  const server = await startServer({ server: opts.server, engine, args: ['--verbose', '--pool', String(poolSize)] });
  await waitReadyLines(server, fullPool);
  await sleep(settleMs + 3000);
  results.idlePythonMemory = await idleContainerMemory(engine, server.pid);
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
