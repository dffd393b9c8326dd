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
    calls: { type: 'string', default: '7' },
    'settle-ms': { type: 'string', default: '3000' },
    json: { type: 'string' },
  },
});
const calls = Number(opts.calls);
const settleMs = Number(opts['settle-ms']);

const require = createRequire(pathToFileURL(path.join(here, '..', 'tests', 'e2e', 'package.json')));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport, getDefaultEnvironment } = require('@modelcontextprotocol/sdk/client/stdio.js');

const timed = (imports, work) => `import time
_t0 = time.perf_counter()
${imports}
_t1 = time.perf_counter()
${work}
_t2 = time.perf_counter()
print(f"imports_ms={(_t1 - _t0) * 1000:.1f} work_ms={(_t2 - _t1) * 1000:.1f}")
`;
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

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const p50 = (values) => [...values].sort((a, b) => a - b)[Math.ceil(values.length / 2) - 1];

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

async function startServer(pool, share, dataDir) {
  const transport = new StdioClientTransport({
    command: path.resolve(opts.server),
    args: ['--verbose', '--pool', String(pool), '--share', `${share}:sales`, '--data-dir', dataDir],
    env: { ...getDefaultEnvironment(), CODE_SANDBOX_ENGINE: opts.engine },
    stderr: 'pipe',
  });
  const server = { ready: 0, callsMade: 0 };
  transport.stderr.on('data', (chunk) => {
    server.ready += (chunk.toString().match(/ ready in all/g) ?? []).length;
  });
  server.client = new Client({ name: 'code-sandbox-bench', version: '1.0.0' });
  await server.client.connect(transport);
  return server;
}

async function untilReady(server, count) {
  while (server.ready < count) await sleep(50);
}

async function measure(server, pooled, name) {
  const rows = [];
  for (let k = 0; k < calls; k++) {
    if (pooled) {
      // Python and JavaScript at the start, then one refill per call made.
      await untilReady(server, server.callsMade + 2);
      await sleep(settleMs);
    }
    server.callsMade += 1;
    const start = performance.now();
    const result = await server.client.callTool({ name: 'run_python_code', arguments: { code: PROGRAMS[name] } });
    const endToEnd = performance.now() - start;
    const stdout = result.structuredContent?.stdout ?? '';
    const match = /imports_ms=([\d.]+) work_ms=([\d.]+)/.exec(stdout);
    if (result.isError || !match) throw new Error(`${name} failed: ${JSON.stringify(result).slice(0, 1500)}`);
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
  const share = fs.mkdtempSync(path.join(os.tmpdir(), 'csm-bench-share-'));
  const bytes = makeSalesCsv(share);
  const results = { engine: opts.engine, csvBytes: bytes, calls, loadAtStart: os.loadavg() };
  for (const pooled of [false, true]) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'csm-bench-data-'));
    const server = await startServer(pooled ? 1 : 0, share, dataDir);
    for (const name of Object.keys(PROGRAMS)) {
      process.stderr.write(`${pooled ? 'pooled' : 'cold'} ${name}...\n`);
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
