// `serve`'s nursery hold (nursery/), taken as the process starts: main.ts imports this module
// first, because loading the command's code (the command table imports `call` and everything it
// needs) is much of start-up's long-lived allocation, and under load the nursery had grown to 8
// MiB before serve's own code ran (docs/decisions.md, "The nursery during start-up").
import { holdNursery, type NurseryHold } from '../nursery/index.js';

// the dispatcher runs argv[2] as the command's first word: 'serve' is the serve command
let early: NurseryHold | undefined = process.argv[2] === 'serve' ? holdNursery() : undefined;

/** The hold taken at process start for serve (once), else a new one: serve run by an embedder or a test. Taken when serve runs, never when its command is only loaded (for its help). */
export function takeStartupHold(): NurseryHold {
  const hold = early ?? holdNursery();
  early = undefined;
  return hold;
}

/**
 * Releases the process-start hold if serve never took it (`toolgate serve --help`, a usage error
 * the dispatcher answers): main.ts calls this once the command has returned.
 */
export function dropUnusedStartupHold(): void {
  early?.release();
  early = undefined;
}
