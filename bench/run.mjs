// `make bench`: runs every bench/sections/*.mjs in name order, prints each section, and writes
// bench/RESULTS.md. A section exports `title` and `run(ctx)` returning markdown; add a file to add one.
// Exits 1 when a section threw (after RESULTS.md is written, the failure in it), so a broken section
// cannot pass unseen. `--smoke` runs every count at its smoke size (ctx.count) and writes nothing:
// a check that each section still runs against the current build (test/bench), not a measurement.
import { readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';

const here = new URL('./', import.meta.url);
const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const only = args.filter((a) => a !== '--smoke');
const files = readdirSync(new URL('sections/', here))
  .filter((f) => f.endsWith('.mjs'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

const ctx = {
  /** Median, p99, min and count of a list of numbers. */
  summary(values) {
    const s = [...values].sort((a, b) => a - b);
    const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
    return { median: at(0.5), p99: at(0.99), min: s[0], max: s[s.length - 1], n: s.length };
  },
  fmt(n, digits = 1) {
    return Number.isFinite(n) ? n.toFixed(digits) : String(n);
  },
  gc() {
    if (typeof globalThis.gc === 'function') globalThis.gc();
  },
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  /** True in a smoke run: the section should skip what only a measurement needs (a baseline build). */
  smoke,
  /** A count (rounds, calls, warm-up): `full` in a measurement, `tiny` in a smoke run. */
  count: (full, tiny) => (smoke ? Math.min(full, tiny) : full),
};

const started = new Date();
const load = os
  .loadavg()
  .map((x) => x.toFixed(2))
  .join(' / ');
const parts = [
  '# toolgate benchmarks',
  '',
  `Run ${started.toISOString()} on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.type()} ${os.release()}, Node ${process.version}, load average at start ${load}.`,
  'Each section is one file in bench/sections/; `make bench` reruns them all and rewrites this file.',
  "This machine is shared: quote medians, and expect p99 to carry other processes' noise.",
  '',
];
const failed = [];
for (const file of files) {
  const t0 = performance.now();
  let section = { title: file };
  let md;
  try {
    section = await import(new URL(`sections/${file}`, here).href);
    process.stdout.write(`\n## ${section.title}\n`);
    md = await section.run(ctx);
    if (typeof md !== 'string') throw new Error(`run() returned ${typeof md}, not markdown`);
  } catch (err) {
    failed.push(file);
    md = `Section failed: ${err instanceof Error ? err.stack : String(err)}`;
  }
  process.stdout.write(`${md}\n(${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
  parts.push(`## ${section.title}`, '', md.trim(), '');
}
parts.push(
  `Load average at the end: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ')}; the whole run took ${((Date.now() - started.getTime()) / 1000).toFixed(0)} s.`,
  '',
);
if (only.length === 0 && !smoke) writeFileSync(new URL('RESULTS.md', here), parts.join('\n'));
else process.stdout.write(`\n(${smoke ? 'smoke' : 'subset'} run: RESULTS.md not rewritten)\n`);
if (files.length === 0) failed.push(`no section matches ${only.join(', ')}`);
if (failed.length > 0) process.stderr.write(`\nbench: ${failed.length} section(s) failed: ${failed.join(', ')}\n`);
process.exit(failed.length > 0 ? 1 : 0);
