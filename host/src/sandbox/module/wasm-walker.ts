// The code-section rewrite as a small WebAssembly module (host/walker/walker.ts, built into
// dist/sandbox/module/walker.wasm), run with plain WebAssembly: a fresh process then walks its first
// module at compiled speed rather than as cold JavaScript (docs/decisions.md, "The instruction walker
// as WebAssembly"). It writes the same bytes as the JavaScript walker (code.ts, preempt.ts) and
// refuses what it refuses with the same error and message (one table, refusals.ts); when the file
// is missing or the module is too big for the walker's memory, the JavaScript walker does the work
// (it is linear in the module, as it always was).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { messageOf } from '../../errors/index.js';
import { WALKER_OUT_OF_MEMORY, WALKER_REFUSALS } from './refusals.js';

/** What the walker needs besides the code section (preempt.ts instrumentPreemption's rules). */
export interface CodeSectionRules {
  importedFuncs: number;
  definedFuncs: number;
  globalCount: number;
  /** Each defined function's parameter count, in order. */
  params: readonly number[];
}

/** The rewritten section, or why the JavaScript walker must do it. */
export type WasmWalk = { code: Uint8Array } | { unavailable: string };

const PAGE = 65536;
/**
 * The walker's memory maximum, 1 GiB: it holds the code section, 6 bytes of scratch per byte of it
 * (the block stack and the edits: walker.ts) and the output. The walker is fed untrusted bytes; a section that
 * does not fit is walked by the JavaScript walker instead (manifests cap modules at 64 MiB).
 */
export const WALKER_MAX_PAGES = 16384;

interface WalkerExports {
  heapBase(): number;
  rewrite(...args: number[]): void;
  outputEnd(): number;
  errorCode(): number;
  errorA(): number;
  errorB(): number;
}

let compiled: { module: WebAssembly.Module; heapBase: number } | null | undefined;

/** The walker's file: beside this module in dist/, under dist/sandbox from the bundle or the sources. */
function walkerFile(): string | undefined {
  const candidates = import.meta.url.endsWith('.ts')
    ? [new URL('../../../../dist/sandbox/module/walker.wasm', import.meta.url)]
    : [new URL('./walker.wasm', import.meta.url), new URL('../sandbox/module/walker.wasm', import.meta.url)];
  return candidates.map((c) => fileURLToPath(c)).find((p) => existsSync(p));
}

/**
 * The compiled walker and its heap base (fixed by the build, read once from an instance on a
 * one-page memory), once per process; null when its file is missing or does not compile.
 */
function walkerModule(): { module: WebAssembly.Module; heapBase: number } | null {
  if (compiled !== undefined) return compiled;
  const file = walkerFile();
  try {
    if (file === undefined) return (compiled = null);
    const module = new WebAssembly.Module(readFileSync(file));
    const probe = new WebAssembly.Instance(module, { env: { memory: new WebAssembly.Memory({ initial: 1 }) } });
    compiled = { module, heapBase: (probe.exports as unknown as WalkerExports).heapBase() };
  } catch {
    compiled = null;
  }
  return compiled;
}

/** Whether the WebAssembly walker is there to use (tests and bench check they measure it). */
export function wasmWalkerAvailable(): boolean {
  return walkerModule() !== null;
}

/** The JavaScript walker's error for a refusal the walker reported (refusals.ts holds the table). */
function refusal(code: number, a: number, b: number): Error {
  return WALKER_REFUSALS.get(code)?.error(a, b) ?? new Error(`the instruction walker stopped with code ${code}`);
}

/** Where things go in the walker's memory, and how many pages that takes to begin with. */
function layout(base: number, codeLen: number, funcs: number) {
  const codeAt = base;
  const paramsAt = (codeAt + codeLen + 3) & ~3;
  const scratchAt = paramsAt + 4 * funcs;
  // an open block (4 bytes) and an edit (8) each take at least 2 bytes of code (walker.ts rewrite)
  const outAt = scratchAt + 12 * (Math.floor(codeLen / 2) + 2);
  // the output is usually a little larger than the input; the walker grows its memory past this
  const pages = Math.ceil((outAt + codeLen + (codeLen >> 2) + PAGE) / PAGE);
  return { codeAt, paramsAt, scratchAt, outAt, pages };
}

/**
 * Rewrites a code section's body as preempt.ts does, in the WebAssembly walker. Throws the
 * JavaScript walker's error for a module it refuses; returns `unavailable` when the walker cannot
 * run it (not built, the section too big for its memory, or a trap it did not mean), and the caller
 * then uses the JavaScript walker.
 */
export function rewriteCodeInWasm(code: Uint8Array, rules: CodeSectionRules, maxPages = WALKER_MAX_PAGES): WasmWalk {
  const walkerCode = walkerModule();
  if (walkerCode === null) return { unavailable: 'the instruction walker (walker.wasm) is not built' };
  const funcs = rules.params.length;
  const at = layout(walkerCode.heapBase, code.length, funcs);
  if (at.pages > maxPages)
    return {
      unavailable: `the code section (${code.length} bytes) needs ${at.pages} pages of the instruction walker's memory, over its ${maxPages}`,
    };
  let memory: WebAssembly.Memory;
  try {
    memory = new WebAssembly.Memory({ initial: at.pages, maximum: maxPages });
  } catch (err) {
    return { unavailable: `the instruction walker's memory (${at.pages} pages) could not be made: ${messageOf(err)}` };
  }
  const walker = new WebAssembly.Instance(walkerCode.module, { env: { memory } }).exports as unknown as WalkerExports;
  new Uint8Array(memory.buffer, at.codeAt, code.length).set(code);
  new Uint32Array(memory.buffer, at.paramsAt, funcs).set(rules.params);
  try {
    walker.rewrite(
      at.codeAt,
      code.length,
      at.paramsAt,
      funcs,
      at.scratchAt,
      at.outAt,
      rules.importedFuncs,
      rules.definedFuncs,
      rules.globalCount,
    );
  } catch (err) {
    if (!(err instanceof WebAssembly.RuntimeError)) throw err;
    const kind = walker.errorCode();
    if (kind === WALKER_OUT_OF_MEMORY)
      return { unavailable: `the rewritten code section outgrew the instruction walker's ${maxPages} pages of memory` };
    // a trap the walker did not mean (a fault of its own): the reference walker decides instead
    if (kind === 0) return { unavailable: `the instruction walker stopped: ${err.message}` };
    throw refusal(kind, walker.errorA() >>> 0, walker.errorB() >>> 0);
  }
  return { code: new Uint8Array(memory.buffer, at.outAt, walker.outputEnd() - at.outAt).slice() };
}
