// `make bench`: runs every bench/sections/*.mjs in name order, prints each section, and writes
// bench/RESULTS.md. A section exports `title` and `run(ctx)` returning markdown; add a file to add one.
import { readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';

const here = new URL('./', import.meta.url);
const only = process.argv.slice(2);
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
for (const file of files) {
  const section = await import(new URL(`sections/${file}`, here).href);
  process.stdout.write(`\n## ${section.title}\n`);
  const t0 = performance.now();
  let md;
  try {
    md = await section.run(ctx);
  } catch (err) {
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
if (only.length === 0) writeFileSync(new URL('RESULTS.md', here), parts.join('\n'));
else process.stdout.write('\n(subset run: RESULTS.md not rewritten)\n');
process.exit(0);
