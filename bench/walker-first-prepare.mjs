// The first preparation of a module in a fresh process, with the instruction walker as WebAssembly
// against the JavaScript one (docs/decisions.md, "The instruction walker as WebAssembly"). Each
// round starts one process per build, alternating which goes first; a build is a folder holding
// dist/ (one without dist/sandbox/module/walker.wasm walks in JavaScript).
//   node bench/walker-first-prepare.mjs JS_ROOT WASM_ROOT [rounds=15] [convert_units|core]
// convert_units is prepared as a pure tool is for the calling thread (prepareModule, preempt on);
// core is the JS engine's 12 MB core module (pdk-examples/js), instrumented (instrumentPreemption).
// Prints per build the median, minimum and maximum in ms of wall time and of the process's CPU time
// over the same span (all threads: steadier than wall time on a loaded machine), and the load average.
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';

const [jsRoot, wasmRoot, roundsArg = '15', what = 'convert_units'] = process.argv.slice(2);
if (jsRoot === undefined || wasmRoot === undefined || !['convert_units', 'core'].includes(what)) {
  console.error('usage: node bench/walker-first-prepare.mjs JS_ROOT WASM_ROOT [rounds] [convert_units|core]');
  process.exit(2);
}
const repo = resolve(new URL('..', import.meta.url).pathname);

/** The child's program: read, then time the one preparation this process ever does. */
const child = (root) => `
import { readFileSync } from 'node:fs';
const dist = ${JSON.stringify(`${resolve(root)}/dist/sandbox/module/`)};
const { prepareModule } = await import(dist + 'prepare.js');
const { instrumentPreemption } = await import(dist + 'preempt.js');
const { splitSections } = await import(dist + 'sections.js');
const { toolModuleOf } = await import(dist + 'component.js');
const { WASI_IMPORT_NAMES } = await import(${JSON.stringify(`${resolve(root)}/dist/sandbox/wasi/index.js`)}).catch(() => ({}));
let ms;
const cpu0 = process.cpuUsage();
if (${JSON.stringify(what)} === 'core') {
  const core = toolModuleOf(readFileSync(${JSON.stringify(`${repo}/pdk-examples/js/build/summarise.wasm`)}), 'summarise');
  const { BinaryReader } = await import(dist + 'leb128.js');
  const imports = splitSections(core).find((s) => s.id === 2);
  let importedFuncs = 0;
  if (imports) {
    // the core module imports functions only (toolgate's world)
    const r = new BinaryReader(imports.body);
    for (let n = r.u32(); n > 0; n--) {
      r.name();
      r.name();
      if (r.byte() !== 0) throw new Error('an import other than a function');
      r.u32();
      importedFuncs++;
    }
  }
  const t0 = performance.now();
  const sections = splitSections(core);
  instrumentPreemption(sections, { importedFuncs, importedGlobals: 0 });
  ms = performance.now() - t0;
} else {
  const bytes = readFileSync(${JSON.stringify(`${repo}/pdk-examples/rust/build/convert_units.wasm`)});
  const t0 = performance.now();
  const p = prepareModule(bytes, { tool: 'convert_units', entry: 'convert_units', maxPages: 256, wasiImportNames: WASI_IMPORT_NAMES ?? [], preempt: true });
  ms = performance.now() - t0;
  if (!p.preemptible) throw new Error('not instrumented');
}
const cpu = process.cpuUsage(cpu0);
process.stdout.write(ms + ' ' + (cpu.user + cpu.system) / 1000);
`;

const builds = [
  { name: 'js', root: jsRoot, ms: [], cpu: [] },
  { name: 'wasm', root: wasmRoot, ms: [], cpu: [] },
];
const rounds = Number(roundsArg);
for (let i = 0; i < rounds; i++) {
  const order = i % 2 === 0 ? builds : [...builds].reverse();
  for (const b of order) {
    const [ms, cpu] = String(execFileSync(process.execPath, ['--input-type=module', '-e', child(b.root)])).split(' ');
    b.ms.push(Number(ms));
    b.cpu.push(Number(cpu));
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const b of builds)
  console.log(
    `${what} ${b.name}: median ${median(b.ms).toFixed(1)} ms, range ${Math.min(...b.ms).toFixed(1)}-${Math.max(...b.ms).toFixed(1)}; CPU (all threads) median ${median(b.cpu).toFixed(1)} ms, range ${Math.min(...b.cpu).toFixed(1)}-${Math.max(...b.cpu).toFixed(1)} (${rounds} processes)`,
  );
console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
