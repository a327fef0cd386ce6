// serve's start-up helper, on a thread of its own (started by startup-prep.ts as the process
// starts): while the serving thread loads its code, it reads the manifests' YAML, the costliest
// cold step of an empty home's start, and sends each file's text and data back. It loads yaml and
// nothing of the manifest's rules: the serving thread validates what it is sent as it validates any
// manifest, and parses a text itself when the helper's differs, failed, or is late
// (docs/decisions.md, "First call with an empty home: YAML on a start-up thread at the lowest
// priority"). It ends when done.
import { readlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { constants, setPriority } from 'node:os';
import { workerData } from 'node:worker_threads';
import { MAX_MANIFEST_BYTES, readYaml, yaml } from '../lazy-yaml/index.js';
import { followNurseryHold } from '../nursery/index.js';
import { BY_HELPER, FREE, type HelperNote, type HelperStart } from './startup-plan.js';

const { files, claims, nursery, port } = workerData as HelperStart;
const tell = (note: HelperNote): void => port.postMessage(note);

/** One file: its text and data, or its name alone (unreadable, too large, or YAML with a problem). */
async function readOne(file: string): Promise<HelperNote> {
  try {
    const bytes = await readFile(file);
    // past the bound, left to the serving thread, which refuses it by its size (manifest/parse.ts)
    if (bytes.length > MAX_MANIFEST_BYTES) return { file };
    const text = bytes.toString('utf8');
    const read = readYaml(text);
    return 'data' in read ? { file, text, data: read.data } : { file };
  } catch {
    return { file };
  }
}

/**
 * This thread, and it alone, to the lowest CPU priority: on Linux a thread's nice value is its own
 * (set through its thread id, read from /proc/thread-self). So the helper runs on a core that would
 * otherwise idle and yields to everything else, the serving thread included, when none does.
 * Elsewhere, or if refused, it runs at the process's priority.
 */
function lowestPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    // never the process id: that thread is the serving thread
    if (Number.isInteger(tid) && tid > 0 && tid !== process.pid) setPriority(tid, constants.priority.PRIORITY_LOW);
  } catch {
    /* not Linux, or not allowed: the helper still helps on an idle machine */
  }
}

async function run(): Promise<void> {
  // this thread's isolate raised V8's process-wide nursery growth back: serve's hold applies again
  followNurseryHold(nursery);
  lowestPriority();
  yaml(); // loaded before the first claim, so a claimed file is one parse away from its note
  for (const [i, file] of files.entries()) {
    // a file the serving thread claimed first is parsed there
    if (Atomics.compareExchange(claims, i, FREE, BY_HELPER) !== FREE) continue;
    const note = await readOne(file);
    try {
      tell(note);
    } catch {
      tell({ file }); // data that cannot be copied across threads: the serving thread parses it
    }
  }
}

void run()
  .catch(() => undefined)
  .finally(() => {
    tell({ done: true });
    port.close();
  });
