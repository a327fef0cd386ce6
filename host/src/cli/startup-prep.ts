// serve's start-up helper, started as the process starts (main.ts calls startHelperForServe before
// the command's code loads): when the home's cache holds no parsed manifest (an empty home), a
// worker (prep-worker.ts) reads the manifests' YAML while this thread spends ~200 ms loading its own
// code. The helper's thread runs at the lowest CPU priority, so it takes only a core nobody else
// wants: on a busy machine it falls behind and this thread parses the files it has not begun.
// This thread takes a file's data from it only when the text it read itself is the helper's text,
// validates it as any manifest, and parses the file itself when the helper failed, is late or had a
// problem with it. It starts only when the machine has a core to spare (coreToSpare);
// TOOLGATE_START_HELPER=1 starts it regardless, 0 never (docs/decisions.md, "First call with an
// empty home: YAML on a start-up thread at the lowest priority"; docs/architecture.md §3.4).
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { toolgateHome } from './home.js';
import { parseArgs } from 'node:util';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { afterIsolateStarted, nurseryHoldWord } from '../nursery/index.js';
import { BY_SERVER, FREE, helperPlanOf, type HelperNote, type HelperStart } from './startup-plan.js';

/**
 * The helper as the serving thread sees it: what it has read so far. The serving thread never waits
 * for it: a file the helper has not delivered when asked for is parsed where it is asked for, so a
 * helper that is slow (a busy machine, where its low priority gives it no core) costs no wait.
 */
export class StartupHelper {
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #files: Map<string, number>;
  readonly #claims: Int32Array;
  readonly #read = new Map<string, HelperNote>();
  #ended = false;
  readonly #gone: Promise<void>;
  /** Files whose data the serving thread took (the debug log says how many). */
  taken = 0;

  /** `start` is what `worker` was started with (its files and their claims); `port`, this side of the helper's channel. */
  constructor(worker: Worker, start: Omit<HelperStart, 'port'>, port: MessagePort) {
    this.#worker = worker;
    this.#port = port;
    this.#files = new Map(start.files.map((f, i) => [f, i]));
    this.#claims = start.claims;
    port.on('message', (note: HelperNote) => this.#take(note));
    port.unref();
    worker.on('error', () => void this.end());
    this.#gone = new Promise((resolve) => worker.once('exit', () => resolve()));
    void this.#gone.then(() => this.end());
  }

  /**
   * `text` (the serving thread's own read of `file`) as YAML gave it on the helper's thread, if the
   * helper has delivered it by now; undefined when it has not (the caller parses it, and a file the
   * helper had not begun is claimed so the helper skips it), read another text, or had a problem.
   */
  async yaml(file: string, text: string): Promise<{ data: unknown } | undefined> {
    const at = this.#files.get(file);
    if (at === undefined) return undefined;
    this.#drain();
    if (!this.#read.has(file)) {
      Atomics.compareExchange(this.#claims, at, FREE, BY_SERVER);
      return undefined;
    }
    const note = this.#read.get(file);
    this.#read.delete(file); // taken once: a later read of the file (a reload) parses afresh
    if (note === undefined || note.text !== text || !('data' in note)) return undefined;
    this.taken++;
    return { data: note.data };
  }

  /** Stops the helper (start-up is over, or it is done). Resolves once its thread has ended. */
  end(): Promise<void> {
    if (!this.#ended) {
      this.#drain(); // what it delivered before the end is still taken
      this.#ended = true;
      this.#port.close();
      void this.#worker.terminate();
    }
    return this.#gone;
  }

  /** Notes already sent but not yet dispatched (this thread was busy loading code): taken now. */
  #drain(): void {
    if (this.#ended) return;
    for (let got = receiveMessageOnPort(this.#port); got !== undefined; got = receiveMessageOnPort(this.#port))
      this.#take(got.message as HelperNote);
  }

  #take(note: HelperNote): void {
    if (note.file !== undefined) this.#read.set(note.file, note);
    if (note.done === true) void this.end();
  }
}

/** The home and --manifests serve will be started with, read from argv as serve-flags.ts reads them; undefined: no helper. */
function serveArgs(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): { home: string; manifests: string[] } | undefined {
  let manifests: string[];
  try {
    const { values } = parseArgs({
      args,
      strict: false,
      options: { manifests: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' } },
    });
    if (values.help === true) return undefined;
    manifests = (values.manifests ?? []).filter((m): m is string => typeof m === 'string');
  } catch {
    return undefined;
  }
  return { home: toolgateHome(env, cwd), manifests };
}

/** True when the home's cache holds no parsed manifest (an empty home): the one case the helper serves. */
function cacheIsEmpty(home: string): boolean {
  try {
    return readdirSync(join(home, 'cache', 'manifests')).every((name) => !name.endsWith('.json'));
  } catch {
    return true;
  }
}

/**
 * Whether the machine has a core to spare now: fewer tasks runnable at this instant, besides this
 * thread, than the cores there are less one (Linux's count of runnable tasks, the fourth field of
 * /proc/loadavg), or, where that count is not to be had, a 1-minute load average under the cores
 * less one. The helper's thread starts at normal priority (~30 ms of CPU before its first step can
 * lower it) and then runs only on a core nobody else wants: with every core taken it costs the
 * serving thread that start and saves nothing (docs/decisions.md, "YAML on a start-up thread at the
 * lowest priority"). A count of this instant, not an average: an average over seconds still counts
 * the last start of a client that starts servers one after another.
 */
export function coreToSpare(readLoadavg = (): string => readFileSync('/proc/loadavg', 'utf8')): boolean {
  const spare = availableParallelism() - 1;
  try {
    const running = /^\S+ \S+ \S+ (\d+)\//.exec(readLoadavg());
    if (running?.[1] !== undefined) return Number(running[1]) - 1 < spare;
  } catch {
    /* not Linux: the load average decides */
  }
  return (loadavg()[0] ?? 0) < spare;
}

/**
 * Starts the helper for `serve` with these arguments when the home's cache is empty and a core is
 * to spare; TOOLGATE_START_HELPER=1 starts it whatever the machine's load, 0 never.
 */
export function startStartupHelper(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  workerFile: URL,
): StartupHelper | undefined {
  const asked = env.TOOLGATE_START_HELPER;
  if (asked === '0' || (asked !== '1' && !coreToSpare())) return undefined;
  const serve = serveArgs(args, env, cwd);
  if (serve === undefined || !cacheIsEmpty(serve.home)) return undefined;
  const files = helperPlanOf(serve.manifests, cwd);
  if (files.length === 0) return undefined;
  const claims = new Int32Array(new SharedArrayBuffer(4 * files.length));
  const { port1, port2 } = new MessageChannel();
  const start: HelperStart = { files, claims, nursery: nurseryHoldWord(), port: port2 };
  let worker: Worker;
  try {
    // its stdout and stderr are its own streams, read and dropped: stdout carries only JSON-RPC
    worker = new Worker(workerFile, { workerData: start, transferList: [port2], stdout: true, stderr: true });
  } catch {
    port1.close();
    return undefined;
  }
  // starting an isolate raised V8's nursery growth for the whole process: serve's hold again, and
  // the helper's own first step does the same (nursery/; else the serving isolate's nursery grows
  // to 32 MiB and stays resident)
  worker.once('online', afterIsolateStarted);
  worker.stdout.resume();
  worker.stderr.resume();
  worker.unref(); // never what keeps the process alive
  return new StartupHelper(worker, start, port1);
}

let early: StartupHelper | undefined;

/**
 * Called by main.ts before the command's code loads, with the helper's file beside it: starts the
 * helper when the command is `serve` (the dispatcher runs argv[2] as the command's first word).
 */
export function startHelperForServe(workerFile: URL): void {
  if (process.argv[2] === 'serve')
    early = startStartupHelper(process.argv.slice(3), process.env, process.cwd(), workerFile);
}

/** The helper started with the process for serve (once), or undefined. */
export function takeStartupHelper(): StartupHelper | undefined {
  const helper = early;
  early = undefined;
  return helper;
}
