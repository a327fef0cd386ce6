// Run as its own process by 30-sandbox-resources: prints the RSS (MiB) that each of K idle instances
// adds: K instances of one tool ("instance": one tool's instances never share a worker, so K
// workers), one instance of each of K tools ("shared": they share instance workers), or K Node
// workers that load nothing ("bare", the floor under a worker).
// A fresh process per measurement: memory freed by an earlier measurement and kept by the allocator
// would otherwise be reused and hide part of the next one's cost (measured: up to ~0.8 MiB each).
import { Worker } from 'node:worker_threads';
import { loadSandboxTool } from '../../dist/sandbox/index.js';
import { kitSpec, never } from './sandbox-fixtures.mjs';

{
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const rss = async () => {
    for (let i = 0; i < 3; i++) {
      globalThis.gc();
      await sleep(50);
    }
    return process.memoryUsage().rss;
  };
  const mode = process.argv[2];
  const K = 8;
  // a tool kept open holds the process-wide spare worker, so the spare is in "before" and "after" alike
  const keeper = await loadSandboxTool(kitSpec('slow_echo', { pool: { max: 1 } }));
  await keeper.call(new Uint8Array(1), { signal: never() });
  await sleep(300);
  const before = await rss();
  let after;
  if (mode === 'bare') {
    const workers = [];
    for (let i = 0; i < K; i++) {
      // the same resource limits as an instance worker (host/src/sandbox/instance-workers.ts)
      const w = new Worker(new URL('./bare-worker.mjs', import.meta.url), {
        env: {},
        resourceLimits: { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 4, stackSizeMb: 4 },
      });
      await new Promise((resolve) => w.once('message', resolve));
      workers.push(w);
    }
    await sleep(300);
    after = await rss();
    await Promise.all(workers.map((w) => w.terminate()));
  } else if (mode === 'shared') {
    const tools = [];
    for (let i = 0; i < K; i++)
      tools.push(await loadSandboxTool({ ...kitSpec('slow_echo', { pool: { max: 1 } }), name: `shared_${i}` }));
    for (const t of tools) await t.call(new Uint8Array(1), { signal: never() });
    await sleep(300); // a worker with room has booted if the last one filled up
    after = await rss();
    await Promise.all(tools.map((t) => t.close()));
  } else {
    const tool = await loadSandboxTool(kitSpec('slow_echo', { pool: { max: K } }));
    await Promise.all(Array.from({ length: K }, () => tool.call(new Uint8Array(1), { signal: never() })));
    if (tool.stats().live !== K) throw new Error(`expected ${K} live instances, got ${tool.stats().live}`);
    await sleep(300); // the replacement spare has booted
    after = await rss();
    await tool.close();
  }
  await keeper.close();
  process.stdout.write(`${(after - before) / K / (1024 * 1024)}\n`);
}
