// Run as its own process by 55-inline-call: prints the RSS (MiB) each idle pooled instance adds for
// a tool with no network and no file access, on the given path ("auto": the calling thread;
// "worker"). K tools of one module, one call each, so each holds one idle instance.
import { loadSandboxTool } from '../../dist/sandbox/index.js';
import { kitSpec, never } from './sandbox-fixtures.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rss = async () => {
  for (let i = 0; i < 3; i++) {
    globalThis.gc();
    await sleep(50);
  }
  return process.memoryUsage().rss;
};
const path = process.argv[2] === 'worker' ? 'worker' : 'auto';
const K = 8;
const spec = (i) => ({ ...kitSpec('greet', { pool: { max: 1 } }), name: `rss_${i}`, execution: { path } });
// the keeper has loaded what every instance shares (the SDK on this thread, the spare worker)
const keeper = await loadSandboxTool(spec('keeper'));
await keeper.call(new Uint8Array(1), { signal: never() });
const tools = [];
for (let i = 0; i < K; i++) tools.push(await loadSandboxTool(spec(i)));
await sleep(300);
const before = await rss();
for (const t of tools) await t.call(new Uint8Array(1), { signal: never() });
if (tools.some((t) => t.stats().idle !== 1)) throw new Error('expected one idle instance per tool');
await sleep(300);
const after = await rss();
const where = tools.reduce((n, t) => n + t.paths().inThread, 0);
if (path === 'auto' && where !== K) throw new Error(`expected ${K} calls on the calling thread, got ${where}`);
await Promise.all([...tools, keeper].map((t) => t.close()));
process.stdout.write(`${(after - before) / K / (1024 * 1024)}\n`);
process.exit(0);
