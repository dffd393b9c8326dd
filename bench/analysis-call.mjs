#!/usr/bin/env node
// Issue 16's data-analysis calls, end to end through the official MCP SDK client over stdio,
// cold (--pool 0) and pooled (--pool 1, each call after its refill has settled):
// - "plot": the plot call (a small pandas frame, a groupby, a bar chart), with the chart
//   coming back as image content from /sandbox/out;
// - "analysis": read a 10 MB CSV from a folder the user shares (--share), group, plot, save;
// - "print1": print(1), for comparison.
// Each call's time is split into: the engine and container (end to end minus what the launcher
// timed), the interpreter and bootstrap (the launcher's time minus what the program timed), the
// imports and the program's own work (timed by the program).
//
// Usage: node analysis-call.mjs [--server PATH] [--engine podman|docker] [--calls N]
//        [--settle-ms MS] [--json FILE]

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { call, intOption, loadSdk, parseOptions, progress, sleep, startServer, summarize, waitReadyLines } from './lib/mcp-bench.mjs';

const script = 'analysis-call.mjs';
const opts = parseOptions(
  script,
  {
    calls: { type: 'string', default: '7' },
    'settle-ms': { type: 'string', default: '3000' },
  },
  'Usage: node analysis-call.mjs [--server PATH] [--engine podman|docker] [--calls N]\n' +
    '       [--settle-ms MS] [--json FILE]',
);
const calls = intOption(script, opts, 'calls');
const settleMs = intOption(script, opts, 'settle-ms', 0);

const timed = (imports, work) => `import time
_t0 = time.perf_counter()
${imports}
_t1 = time.perf_counter()
${work}
_t2 = time.perf_counter()
print(f"imports_ms={(_t1 - _t0) * 1000:.1f} work_ms={(_t2 - _t1) * 1000:.1f}")
`;
const TIMES = /imports_ms=([\d.]+) work_ms=([\d.]+)/;
const PROGRAMS = {
  plot: timed('import pandas as pd\nimport matplotlib.pyplot as plt', `df = pd.DataFrame({"region": ["north", "south", "east", "west"] * 25, "sales": range(100)})
totals = df.groupby("region")["sales"].sum()
totals.plot.bar(title="Sales by region")
plt.show()
print(totals.to_string())`),
  analysis: timed('import pandas as pd\nimport matplotlib.pyplot as plt', `df = pd.read_csv("/data/sales/sales.csv")
by = df.groupby("region")["amount"].sum()
by.plot.bar(title="Sales by region")
plt.savefig("/sandbox/out/by-region.png")
plt.close()
by.to_csv("/sandbox/out/by-region.csv")
print(len(df), "rows")`),
  print1: timed('', 'print(1)'),
};

const p50 = (values) => summarize(values).p50;

function makeSalesCsv(folder) {
  const regions = ['north', 'south', 'east', 'west'];
  const lines = ['date,region,product,amount'];
  let size = 0;
  for (let i = 0; size < 10 * 1024 * 1024; i++) {
    const line = `2026-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')},${regions[i % 4]},product-${i % 97},${(i * 7919) % 1000}.${i % 100}`;
    size += line.length + 1;
    lines.push(line);
  }
  fs.writeFileSync(path.join(folder, 'sales.csv'), `${lines.join('\n')}\n`);
  fs.chmodSync(folder, 0o755);
  fs.chmodSync(path.join(folder, 'sales.csv'), 0o644);
  return size;
}

async function startAnalysisServer(pool, share, dataDir) {
  const server = await startServer({
    server: opts.server,
    engine: opts.engine,
    args: ['--verbose', '--pool', String(pool), '--share', `${share}:sales`, '--data-dir', dataDir],
  });
  server.callsMade = 0;
  return server;
}

async function measure(server, pooled, name) {
  const rows = [];
  for (let k = 0; k < calls; k++) {
    if (pooled) {
      // Python and JavaScript at the start, then one refill per call made.
      await waitReadyLines(server, server.callsMade + 2);
      await sleep(settleMs);
    }
    server.callsMade += 1;
    const { ms: endToEnd, result } = await call(server, PROGRAMS[name], TIMES, { label: name });
    const match = TIMES.exec(result.structuredContent.stdout);
    const launcher = result.structuredContent.duration_ms;
    const imports = Number(match[1]);
    const work = Number(match[2]);
    rows.push({
      endToEnd,
      engine: endToEnd - launcher,
      interpreter: launcher - imports - work,
      imports,
      work,
      images: result.content.filter((c) => c.type === 'image').length,
      files: (result.structuredContent.files ?? []).length,
    });
  }
  const column = (key) => p50(rows.map((row) => row[key]));
  return {
    endToEnd: column('endToEnd'),
    engine: column('engine'),
    interpreter: column('interpreter'),
    imports: column('imports'),
    work: column('work'),
    images: rows[0].images,
    files: rows[0].files,
  };
}

async function main() {
  loadSdk();
  const share = fs.mkdtempSync(path.join(os.tmpdir(), 'csm-bench-share-'));
  const bytes = makeSalesCsv(share);
  const results = { engine: opts.engine, csvBytes: bytes, calls, loadAtStart: os.loadavg() };
  for (const pooled of [false, true]) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'csm-bench-data-'));
    const server = await startAnalysisServer(pooled ? 1 : 0, share, dataDir);
    for (const name of Object.keys(PROGRAMS)) {
      progress(`${pooled ? 'pooled' : 'cold'} ${name}...`);
      results[`${name}-${pooled ? 'pooled' : 'cold'}`] = await measure(server, pooled, name);
    }
    await server.client.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  results.loadAtEnd = os.loadavg();
  fs.rmSync(share, { recursive: true, force: true });
  const f = (v) => v.toFixed(0).padStart(6);
  console.log(`analysis-call benchmark: ${opts.engine}, ${calls} calls each, p50 ms; CSV ${(bytes / 1048576).toFixed(1)} MiB; load ${results.loadAtStart.map((v) => v.toFixed(2)).join(' ')} -> ${results.loadAtEnd.map((v) => v.toFixed(2)).join(' ')}`);
  console.log('call               end-to-end  engine  interp  imports  work  images files');
  for (const [label, r] of Object.entries(results)) {
    if (!r || typeof r !== 'object' || !('endToEnd' in r)) continue;
    console.log(`${label.padEnd(18)} ${f(r.endToEnd)}     ${f(r.engine)}  ${f(r.interpreter)}  ${f(r.imports)}  ${f(r.work)}  ${String(r.images).padStart(3)} ${String(r.files).padStart(5)}`);
  }
  if (opts.json) fs.writeFileSync(opts.json, `${JSON.stringify(results, null, 2)}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
