// Run as its own process by bench/sections/05-mcp-calls-vs-unsandboxed.mjs: prints the RSS (MiB)
// each idle pooled instance adds for a tool with no network and no file access, on the given path
// ("auto": the calling thread; "worker"). K tools of one module (argv[3], default 32), one call
// each, so each holds one idle instance.
import { loadSandboxTool } from '../../dist/sandbox/index.js';
import { kitSpec, never } from './sandbox-fixtures.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// the lowest of several samples after gc: transient memory (compilation, a booting thread) is
// returned to the OS at its own pace and would otherwise land on either side at random
const rss = async () => {
  let low = Infinity;
  for (let i = 0; i < 8; i++) {
    globalThis.gc();
    await sleep(100);
    low = Math.min(low, process.memoryUsage().rss);
  }
  return low;
};
const path = process.argv[2] === 'worker' ? 'worker' : 'auto';
const K = Number(process.argv[3] ?? 32);
// a long slice: on a loaded machine a first call can overrun 20 ms of wall time and move to a worker,
// and this measures the instance, not the slice
const execution = path === 'auto' ? { path, sliceMs: 10_000 } : { path };
const spec = (i) => ({ ...kitSpec('greet', { pool: { max: 1 } }), name: `rss_${i}`, execution });
// the keeper has loaded what every instance shares (the SDK on this thread, the spare worker)
const keeper = await loadSandboxTool(spec('keeper'));
await keeper.call(new Uint8Array(1), { signal: never() });
const tools = [];
for (let i = 0; i < K; i++) tools.push(await loadSandboxTool(spec(i)));
await sleep(300);
const before = await rss();
for (const t of tools) await t.call(new Uint8Array(1), { signal: never() });
const notIdle = tools.map((t) => t.stats()).filter((s) => s.idle !== 1);
if (notIdle.length > 0) throw new Error(`expected one idle instance per tool: ${JSON.stringify(notIdle[0])}`);
await sleep(300);
const after = await rss();
const where = tools.reduce((n, t) => n + t.paths().inThread, 0);
if (path === 'auto' && where !== K) throw new Error(`expected ${K} calls on the calling thread, got ${where}`);
await Promise.all([...tools, keeper].map((t) => t.close()));
if (process.env.RSS_PROBE_DEBUG)
  process.stderr.write(`${JSON.stringify({ before, after, mem: process.memoryUsage() })}\n`);
process.stdout.write(`${(after - before) / K / (1024 * 1024)}\n`);
process.exit(0);
