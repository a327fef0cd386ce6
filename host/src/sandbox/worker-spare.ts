// Starting a worker (isolate + loading the SDK) costs tens of ms; instantiating a compiled module in
// it costs ~1 ms. So one booted, module-less worker is kept ready process-wide while any sandbox
// tool is open: a teardown's replacement (or a cold first call) takes it, and a new spare boots.
import { Worker } from 'node:worker_threads';

/** A JS-side leak in the worker is bounded too (the module's own memory is capped by max_pages). */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 4, stackSizeMb: 4 };

let spare: Worker | undefined;
let users = 0;

function boot(file: URL): Worker {
  const worker = new Worker(file, {
    env: {}, // no host environment inside the instance
    argv: [],
    // the SDK imports node:wasi at load (unused here); its warning is not for users
    execArgv: ['--disable-warning=ExperimentalWarning'],
    resourceLimits: RESOURCE_LIMITS,
    name: 'toolgate:instance',
  });
  // an 'error' without a listener would throw in the host; the instance adds its own when it takes it
  worker.on('error', () => undefined);
  worker.on('exit', () => {
    if (spare === worker) spare = undefined;
  });
  worker.unref();
  return worker;
}

/** A booted worker waiting for its instance init message (see worker/instance-worker.ts). */
export function takeWorker(file: URL): Worker {
  const worker = spare ?? boot(file);
  spare = undefined;
  // after the caller's turn: booting blocks the main thread for a few ms
  setImmediate(() => {
    if (spare === undefined && users > 0) spare = boot(file);
  });
  return worker;
}

/** Keeps a spare (booted now, in the background) until the returned release is called; one per open tool. */
export function retainSpare(file: URL): () => void {
  users++;
  setImmediate(() => {
    if (spare === undefined && users > 0) spare = boot(file);
  });
  let released = false;
  return () => {
    if (released) return;
    released = true;
    users--;
    if (users === 0 && spare) {
      const w = spare;
      spare = undefined;
      void w.terminate();
    }
  };
}
