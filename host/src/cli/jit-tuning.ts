// V8's tier-up threshold, for a process that serves calls. V8 optimises a function once about 66 KB
// of its bytecode has run (--interrupt-budget=67584 on Node 20); a tools/call runs each of some
// thirty short functions once, so a fresh server answered its first ~1000 calls from unoptimised
// code. Measured over calls 200-800 of a WASM echo on stdio: p50 1.30-1.38x an unsandboxed SDK
// server at the default budget, 1.05x at 16 KB, 0.93-0.95x at 8 KB. Lowered only once serving has
// started: at 8 KB from the first line, start-up code that runs once got optimised too and the
// first tools/list came 25-40 ms later. The flag is process-wide (instance workers included) and
// only moves when V8 optimises, never what the code does.
import { setFlagsFromString } from 'node:v8';

const SERVING_INTERRUPT_BUDGET = 8 * 1024;

export function tuneJitForServing(): void {
  setFlagsFromString(`--interrupt-budget=${SERVING_INTERRUPT_BUDGET}`);
}
