// The main isolate's young generation while a server starts. Start-up and the background warm-up
// allocate objects that live for the process (schemas, compiled modules, tool records); V8 reads
// that survival as a need for a larger nursery and doubles its semi-spaces up to 16 MiB each: 32 MiB
// resident for good, against 2 MiB at the first size (docs/decisions.md, "The nursery during
// start-up"). While held, the nursery keeps its size; once released, V8's own factor is back, so
// serving calls scavenge as before (kept for good, the small nursery cost 30-50% more CPU per call).
//
// The growth factor is a process-wide V8 flag, read whenever a nursery would grow. V8 raises it back
// to 2 whenever an isolate is made (on the command line, or when a Worker starts), so a new worker
// applies the hold again as its first step (followNurseryHold, told by a shared word whether one is
// on) and the host again when the worker is online (afterIsolateStarted).
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** V8's default growth factor of the young generation (flag semi_space_growth_factor). */
const V8_SEMI_SPACE_GROWTH_FACTOR = 2;

/** 1 while a hold is on: read by workers, which may start on any thread at any time. */
const heldWord = new Int32Array(new SharedArrayBuffer(4));
let holds = 0;

const setGrowth = (factor: number): void => setFlagsFromString(`--semi-space-growth-factor=${factor}`);

/** One hold on the nursery's size; releasing it twice is harmless. */
export interface NurseryHold {
  release(): void;
}

/** Keeps the nursery at its size until every hold is released. */
export function holdNursery(): NurseryHold {
  holds += 1;
  Atomics.store(heldWord, 0, 1);
  setGrowth(1);
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      holds -= 1;
      if (holds > 0) return;
      // the word first: a worker that read 1 and set the factor after us reads 0 again and undoes it
      Atomics.store(heldWord, 0, 0);
      setGrowth(V8_SEMI_SPACE_GROWTH_FACTOR);
    },
  };
}

/** The word a worker is handed (in its boot data) to learn whether a hold is on. */
export function nurseryHoldWord(): SharedArrayBuffer {
  return heldWord.buffer as SharedArrayBuffer;
}

/** A worker's isolate has started: its heap set-up raised the factor back, so apply a hold again. */
export function afterIsolateStarted(): void {
  if (holds > 0) setGrowth(1);
}

/** In a worker, first thing: apply the host's hold if one is on (see holdNursery's release). */
export function followNurseryHold(word: SharedArrayBuffer): void {
  const held = new Int32Array(word);
  if (Atomics.load(held, 0) !== 1) return;
  setGrowth(1);
  if (Atomics.load(held, 0) !== 1) setGrowth(V8_SEMI_SPACE_GROWTH_FACTOR);
}

const youngMiB = (): number =>
  (getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0) / (1024 * 1024);

/**
 * Lets the nursery grow up to `mib` (both semi-spaces) and holds it there for good. The size is
 * checked when a collection is reported, a turn later: one long synchronous stretch could still
 * double it past the cap once (a server's calls come in short turns). V8's own ceiling on 64-bit is
 * 32 MiB. The returned function stops watching and lets go of the hold.
 */
export function capNurseryAt(mib: number): () => void {
  let hold: NurseryHold | undefined;
  const observer = new PerformanceObserver(() => check());
  const check = (): void => {
    if (hold !== undefined || youngMiB() < mib) return;
    hold = holdNursery();
    observer.disconnect();
  };
  observer.observe({ entryTypes: ['gc'] });
  check();
  return () => {
    observer.disconnect();
    hold?.release();
  };
}
