#!/usr/bin/env node
// Issue 17's session cells, end to end through the official MCP SDK client over stdio: the
// latency of a cell in a live session (`x + 1` in Python and JavaScript, and a pandas group-by on
// a frame loaded in an earlier cell) beside one-shot pooled and cold calls of the same work, and a ten-step analysis
// done as ten one-shot calls (each loading the data again) versus ten cells (loading it once).
// New sessions: the first cell of a session started cold beside one taken from the warm pool
// (which keeps a session's container waiting once an image's first session was asked for).
//
// Usage: node session-cells.mjs [--server PATH] [--engine podman|docker] [--calls N] [--json FILE]

import fs from 'node:fs';
import os from 'node:os';
import {
  closeServer,
  intOption,
  now,
  parseOptions,
  progress,
  sleep,
  startServer,
  summarize,
  waitPoolFull,
} from './lib/mcp-bench.mjs';

const script = 'session-cells.mjs';
const opts = parseOptions(script, { calls: { type: 'string', default: '50' } },
  'Usage: node session-cells.mjs [--server PATH] [--engine podman|docker] [--calls N] [--json FILE]');
const calls = intOption(script, opts, 'calls');

const LOAD = `import pandas as pd
import numpy as np
rng = np.random.default_rng(1)
df = pd.DataFrame({"region": rng.choice(["n", "s", "e", "w"], 200_000), "sales": rng.random(200_000)})
`;
const GROUPBY = 'df.groupby("region")["sales"].sum().round(0).to_dict()';
const STEPS = [
  'df.shape',
  'df["sales"].mean().round(3)',
  'df.groupby("region")["sales"].sum().round(0).to_dict()',
  'df["sales"].quantile([0.1, 0.5, 0.9]).round(3).tolist()',
  '(df["sales"] > 0.5).mean().round(3)',
  'df.groupby("region")["sales"].agg(["min", "max"]).round(3).to_dict()',
  'df.sort_values("sales").tail(3)["region"].tolist()',
  'df["region"].value_counts().to_dict()',
  'df.assign(big=df["sales"] > 0.9).groupby("region")["big"].sum().to_dict()',
  'len(df)',
];

async function callTool(server, args, name = 'run_python_code') {
  const start = now();
  const result = await server.client.callTool({ name, arguments: args });
  const ms = now() - start;
  if (result.isError) throw new Error(`call failed: ${JSON.stringify(result).slice(0, 1500)}`);
  return ms;
}

async function series(label, n, fn) {
  progress(`${label}: ${n} calls`);
  const samples = [];
  for (let k = 0; k < n; k++) samples.push(await fn(k));
  return { label, ...summarize(samples) };
}

async function main() {
  const results = { engine: opts.engine, loadAtStart: os.loadavg(), rows: [] };
  const pooled = await startServer({ server: opts.server, engine: opts.engine, args: ['--verbose', '--pool', '1', '--no-history'] });
  await waitPoolFull(pooled, 2);
  await sleep(3000);

  // Sessions.
  const startMs = await callTool(pooled, { code: 'x = 1', session: 's' });
  results.sessionStartMs = startMs;
  results.rows.push(await series('session cell: x + 1', calls, () => callTool(pooled, { code: 'x + 1', session: 's' })));
  const loadMs = await callTool(pooled, { code: LOAD, session: 's' });
  results.sessionLoadMs = loadMs;
  results.rows.push(await series('session cell: group-by on the loaded frame', calls, () => callTool(pooled, { code: GROUPBY, session: 's' })));
  results.jsSessionStartMs = await callTool(pooled, { code: 'let x = 1', session: 'js' }, 'run_js_code');
  results.rows.push(await series('JavaScript session cell: x + 1', calls, () => callTool(pooled, { code: 'x + 1', session: 'js' }, 'run_js_code')));

  // New sessions, now that one of each language was asked for: each takes the session's
  // container waiting in the pool (time for its refill between them, not counted).
  const newSessions = (server, label, tool, pause) => series(label, Math.min(calls, 10), async (k) => {
    await sleep(pause);
    const ms = await callTool(server, { code: 'x = 1', session: `new${k}` }, tool);
    await server.client.callTool({ name: 'end_session', arguments: { session: `new${k}` } });
    return ms;
  });
  results.rows.push(await newSessions(pooled, 'new session from the pool: first cell', 'run_python_code', 4000));
  results.rows.push(await newSessions(pooled, 'new JavaScript session from the pool: first cell', 'run_js_code', 4000));

  // One-shot pooled: the same work, the frame built each time.
  results.rows.push(await series('one-shot pooled: print(1 + 1)', Math.min(calls, 20), async () => {
    const ms = await callTool(pooled, { code: 'print(1 + 1)' });
    await sleep(2500); // the refill
    return ms;
  }));
  results.rows.push(await series('one-shot pooled: build the frame + group-by', Math.min(calls, 20), async () => {
    const ms = await callTool(pooled, { code: `${LOAD}print(${GROUPBY})` });
    await sleep(2500);
    return ms;
  }));

  // Ten steps: ten one-shot calls (each loading the data) versus ten cells (loading it once).
  progress('ten-step analysis, one-shot pooled (2.5 s between calls for the refill, not counted)');
  let oneShotTotal = 0;
  for (const step of STEPS) {
    oneShotTotal += await callTool(pooled, { code: `${LOAD}print(${step})` });
    await sleep(2500);
  }
  progress('ten-step analysis, as cells of one new session (from the pool)');
  let cellsTotal = await callTool(pooled, { code: LOAD, session: 'ten' });
  for (const step of STEPS) cellsTotal += await callTool(pooled, { code: step, session: 'ten' });
  results.tenSteps = { oneShotPooledMs: oneShotTotal, cellsMs: cellsTotal };
  await closeServer(pooled);

  const cold = await startServer({ server: opts.server, engine: opts.engine, args: ['--pool', '0', '--no-history'] });
  results.rows.push(await series('one-shot cold: print(1 + 1)', Math.min(calls, 10), () => callTool(cold, { code: 'print(1 + 1)' })));
  results.rows.push(await series('one-shot cold: build the frame + group-by', Math.min(calls, 10), () => callTool(cold, { code: `${LOAD}print(${GROUPBY})` })));
  results.rows.push(await newSessions(cold, 'new session, cold: first cell', 'run_python_code', 1000));
  results.rows.push(await newSessions(cold, 'new JavaScript session, cold: first cell', 'run_js_code', 1000));
  await closeServer(cold);
  results.loadAtEnd = os.loadavg();

  const f = (v) => v.toFixed(1);
  console.log(`session-cells benchmark: ${opts.engine}, server ${opts.server}`);
  console.log(`load average at start ${results.loadAtStart.map((v) => v.toFixed(2)).join(' ')}, at end ${results.loadAtEnd.map((v) => v.toFixed(2)).join(' ')}`);
  console.log(`first session's first cell (x = 1, cold): ${f(results.sessionStartMs)} ms; loading the 200,000-row frame in a cell: ${f(results.sessionLoadMs)} ms; first JavaScript session's first cell: ${f(results.jsSessionStartMs)} ms`);
  for (const row of results.rows) console.log(`${row.label.padEnd(46)} n=${row.n} p50 ${f(row.p50)} p95 ${f(row.p95)} min ${f(row.min)} max ${f(row.max)} ms`);
  console.log(`ten-step analysis: ten one-shot pooled calls ${f(results.tenSteps.oneShotPooledMs)} ms in all; a new session, a load and ten cells ${f(results.tenSteps.cellsMs)} ms in all`);
  if (opts.json) fs.writeFileSync(opts.json, `${JSON.stringify(results, null, 2)}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
