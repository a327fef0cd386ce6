#!/usr/bin/env node
// Runs the shared Extism compatibility corpus (<shared>/compat/run.mjs) on this checkout, minus the
// cases listed in test/compat/known-conflicts.json: cases whose expectation conflicts with a
// containment rule we keep. Each one left out is printed with its reason, so it is never silent.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const shared = resolve(process.argv[2] ?? join(ROOT, '..', 'shared'));
const runner = join(shared, 'compat', 'run.mjs');
if (!existsSync(runner)) {
  console.log(`compat: skipped (${runner} not found; set SHARED=<folder holding compat/>)`);
  process.exit(0);
}
const cases = JSON.parse(readFileSync(join(shared, 'compat', 'cases.json'), 'utf8'));
const list = Array.isArray(cases) ? cases : cases.cases;
const known = JSON.parse(readFileSync(join(ROOT, 'test', 'compat', 'known-conflicts.json'), 'utf8'));
const run = list.map((c) => c.name).filter((n) => !(n in known));
for (const [name, why] of Object.entries(known)) {
  if (list.some((c) => c.name === name)) console.log(`compat: not run: ${name}: known conflict: ${why}`);
}
const r = spawnSync(process.execPath, [runner, ...run], { cwd: ROOT, stdio: 'inherit' });
process.exit(r.status ?? 1);
