// Manifest folders kept in step with the registry: each manifest is one child plugin of the root,
// so removing or changing the file unregisters exactly that tool (and closes its sandbox pool).
import { createHash } from 'node:crypto';
import { statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from 'pino';
import {
  describeCapabilities,
  manifestDefinition,
  pluginFromManifest,
  sandboxCodeWarmUp,
  toolFromManifest,
  withholdNames,
  type WithheldNames,
  type LoadedManifest,
} from '../manifest/index.js';
import type { Context, PluginHandle } from '../plugin/index.js';
import type { Json, JsonObject, ToolDefinition } from '../tool/index.js';
import { scanManifestDirs } from './manifest-scan.js';
import { sharedKeys } from './module-surfaces.js';
import { messageOf } from '../errors/index.js';

/** A folder whose changes trigger a sync; `names` limits that to events about these entries. */
export interface WatchTarget {
  dir: string;
  names?: string[];
}

export interface ManifestToolsOptions {
  dirs: string[];
  /**
   * More folders, resolved again on every sync (the installed store: its tools are re-checked
   * against the lockfile each time, so an install or uninstall is seen without a restart).
   */
  moreDirs?: () => Promise<string[]>;
  /** More places to watch besides `dirs` (the store's lockfile and tools/ folder). */
  watchAlso?: WatchTarget[];
  /** How often a watched folder that does not exist yet is looked for again. Default 1000 ms. */
  retryMs?: number;
  /** Where each manifest's plugin is mounted (runtime.host.root). */
  ctx: Context;
  logger: Logger;
  /**
   * When modules compile: 'now' before sync() resolves; 'background' right after it (the tool is
   * listed at once and its first call waits for the compile); 'on-call' only on first use.
   * Default 'background'.
   */
  compile?: 'now' | 'background' | 'on-call';
  /**
   * With 'background': compiles wait for this first (serve passes "the first tools/list was
   * answered, or 1 s"), so start-up work does not compete with the client's first answer.
   */
  backgroundAfter?: Promise<unknown>;
  /**
   * With 'background': when this resolves, the sandbox's code that any first call loads (the
   * sandbox, the Extism runner) is loaded in idle turns, one step at a time, before the modules
   * (serve passes "initialize was answered": the client's round trips until its first call leave
   * the server idle). Unset: it loads with the first tool's warm-up or call, as before.
   */
  codeAfter?: Promise<unknown>;
  debounceMs?: number;
}

/** What a person is shown about a served manifest tool (the /ui tools view). */
export interface ServedManifest {
  name: string;
  version: string;
  file: string;
  /** sha256 of the module as loaded; `pinned` when the manifest names it. */
  sha256: string;
  pinned: boolean;
  /** The capabilities in plain words, as `inspect` words them. */
  capabilities: string[];
}

interface Entry {
  name: string;
  served: ServedManifest;
  fingerprint: string;
  handle: PluginHandle;
  /** Compiles the module, then (after `beforeChecks`) the tool's validators. */
  warm: (beforeChecks?: () => Promise<void>) => Promise<void>;
  /** Starts the sandbox load alone, ahead of the background warm-up (JavaScript tools: see #sync). */
  loadEarly?: () => void;
}

/** Same manifest, same module bytes, same resolved mounts, same pin of described text = nothing to reload. */
function fingerprint(loaded: LoadedManifest, withheld: WithheldNames): string {
  return (
    createHash('sha256')
      .update(JSON.stringify(loaded.manifest))
      // a plugin registers again when the names a plain manifest takes from it change (shared-names.ts)
      .update(JSON.stringify([...(withheld.get(loaded.file)?.keys() ?? [])].sort()))
      .update(loaded.sha256)
      .update(JSON.stringify(loaded.allowedPaths))
      .update(JSON.stringify(loaded.describedPin ?? null))
      .digest('hex')
  );
}

/**
 * A tool whose sandbox is built on first use: the model sees it at once, and serving starts
 * without paying every module's compile. A module the sandbox refuses fails its calls with the
 * load error (and is unregistered by the background warm-up).
 */
function lazyTool(
  loaded: LoadedManifest,
  logger: Logger,
  calls: RunningCalls,
): { def: ToolDefinition; warm: () => Promise<ToolDefinition> } {
  let real: Promise<ToolDefinition> | undefined;
  let ready: ToolDefinition | undefined; // the compiled tool, once there is one (for metrics)
  // A JavaScript tool's first instance boots its worker and instantiates the 12 MB engine: started
  // as soon as the tool is loaded, a first call finds it ready (docs/decisions.md, "JavaScript tools:
  // the first call"). One instance, trimmed when idle like any other.
  const startInstance = loaded.manifest.module.abi === 'component';
  // The manifest as loaded holds its module's bytes: kept only until the sandbox has them, so a
  // served tool does not hold them for good (docs/decisions.md "Bytes kept after compiling").
  let source: LoadedManifest | undefined = loaded;
  const warm = (): Promise<ToolDefinition> => {
    if (real === undefined && source !== undefined) {
      real = toolFromManifest(source, { logger, startInstance }).then((tool) => {
        ready = tool;
        return tool;
      });
      source = undefined;
    }
    return real as Promise<ToolDefinition>;
  };
  const def = manifestDefinition(loaded.manifest, {
    allowedPaths: loaded.allowedPaths,
    async execute(args: Readonly<JsonObject>, exec): Promise<Json> {
      calls.enter();
      try {
        const tool = await warm();
        return await tool.execute(args, exec);
      } finally {
        calls.leave();
      }
    },
    async dispose() {
      if (real === undefined) return;
      const tool = await real.catch(() => undefined);
      await tool?.dispose?.();
    },
    instances: () => ready?.instances?.() ?? { live: 0, busy: 0, idle: 0, queued: 0 },
  });
  return { def, warm };
}

/**
 * Calls of manifest tools in flight: the background warm-up waits for none to run before it starts
 * the next tool, so a client's first call does not share the thread with nine other tools'
 * compiles, validators and HTTP warm-up (docs/decisions.md, issue 27).
 */
class RunningCalls {
  #running = 0;
  #waiters: (() => void)[] = [];

  enter(): void {
    this.#running++;
  }

  leave(): void {
    if (--this.#running === 0) for (const w of this.#waiters.splice(0)) w();
  }

  /** Resolves once no call runs (at once if none does). */
  idle(): Promise<void> {
    return this.#running === 0 ? Promise.resolve() : new Promise((r) => this.#waiters.push(r));
  }
}

const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

export class ManifestTools {
  readonly #calls = new RunningCalls();
  readonly #opts: ManifestToolsOptions;
  readonly #entries = new Map<string, Entry>(); // by manifest file
  readonly #watchers = new Map<string, FSWatcher>(); // by folder
  readonly #missing: WatchTarget[] = [];
  #retry: NodeJS.Timeout | undefined;
  #timer: NodeJS.Timeout | undefined;
  #syncing: Promise<void> = Promise.resolve();
  #closed = false;
  #warmStopped = false;
  /** The code warm-up (codeAfter), started by the first sync that added a WASM tool. */
  #codeWarming: Promise<void> | undefined;
  /** The newest sync's background warm-up (resolved when it started none). */
  #warming: Promise<void> = Promise.resolve();
  #firstWarmUpEnded: (warming: Promise<void>) => void = () => {};
  readonly #firstWarmUp = new Promise<void>((resolve) => {
    this.#firstWarmUpEnded = resolve;
  });

  constructor(opts: ManifestToolsOptions) {
    this.#opts = opts;
  }

  /**
   * Resolves once the first sync's background warm-up has ended: every tool compiled, the warm-up
   * stopped, or nothing to warm. Serve releases its start-up hold of the nursery here (the hold is
   * taken in cli/startup-hold.ts, released in cli/commands/serve.ts).
   */
  firstWarmUp(): Promise<void> {
    return this.#firstWarmUp;
  }

  /** Tool names this loader registered (others may have been loaded by the runtime itself). */
  get names(): string[] {
    return [...this.#entries.values()].map((e) => e.name);
  }

  /** The manifest tools served now, by name. */
  served(): ServedManifest[] {
    return [...this.#entries.values()].map((e) => ({ ...e.served, capabilities: [...e.served.capabilities] }));
  }

  /** Loads or reloads what changed; one sync at a time, in order. */
  sync(): Promise<void> {
    this.#syncing = this.#syncing
      .then(() => this.#sync())
      .catch((err: unknown) => this.#opts.logger.error({ err }, 'manifest sync failed'))
      // only the first call counts: a resolved promise keeps its first value
      .then(() => this.#firstWarmUpEnded(this.#warming.catch(() => undefined)));
    return this.#syncing;
  }

  /**
   * fs.watch on each folder; bursts of events (editors write twice) become one sync. A folder that
   * does not exist yet (a store before its first install) is looked for again every `retryMs`.
   */
  watch(): void {
    const targets = [...watchTargets(this.#opts.dirs), ...(this.#opts.watchAlso ?? [])];
    for (const t of targets) this.#attach(t);
  }

  /**
   * Starts no more background warm-ups (serve calls it when shutdown begins): a warm-up held back
   * while a call ran would otherwise start when shutdown cancels that call, and compete with the
   * teardown for the thread.
   */
  stopWarming(): void {
    this.#warmStopped = true;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#retry !== undefined) clearInterval(this.#retry);
    for (const w of this.#watchers.values()) w.close();
    this.#watchers.clear();
    await this.#syncing;
  }

  #attach(target: WatchTarget): boolean {
    if (this.#closed || this.#watchers.has(target.dir)) return true;
    const names = target.names === undefined ? undefined : new Set(target.names);
    try {
      const w = watch(target.dir, { persistent: false }, (_event, file) => {
        // An unnamed event may be about anything; a named one must be about a watched entry
        // (the store folder also holds the audit log, written on every call).
        if (names === undefined || file === null || names.has(String(file))) this.#schedule();
      });
      w.on('error', (err) => {
        // The folder went away: watch for it to come back.
        this.#opts.logger.debug({ err, dir: target.dir }, 'manifest watch lost');
        w.close();
        this.#watchers.delete(target.dir);
        this.#waitFor(target);
        this.#schedule();
      });
      this.#watchers.set(target.dir, w);
      return true;
    } catch (err) {
      if (err instanceof Error && 'code' in err && err.code === 'ENOENT') {
        this.#waitFor(target);
        return false;
      }
      this.#opts.logger.warn({ err, dir: target.dir }, 'cannot watch manifest folder; changes need a restart');
      return true;
    }
  }

  #waitFor(target: WatchTarget): void {
    if (this.#closed) return;
    this.#missing.push(target);
    if (this.#retry !== undefined) return;
    this.#retry = setInterval(() => {
      const waiting = this.#missing.splice(0);
      for (const t of waiting) {
        // Appeared: what is already in it counts as a change.
        if (this.#attach(t)) this.#schedule();
      }
      if (this.#missing.length === 0 && this.#retry !== undefined) {
        clearInterval(this.#retry);
        this.#retry = undefined;
      }
    }, this.#opts.retryMs ?? 1000);
    this.#retry.unref();
  }

  #schedule(): void {
    if (this.#closed) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.sync();
    }, this.#opts.debounceMs ?? 150);
    this.#timer.unref();
  }

  async #sync(): Promise<void> {
    if (this.#closed) return;
    const { ctx, logger } = this.#opts;
    const more = this.#opts.moreDirs === undefined ? [] : await this.#opts.moreDirs();
    const dirs = [...new Set([...this.#opts.dirs, ...more])];
    const { manifests, errors, withheld } = await scanManifestDirs(dirs);
    for (const e of errors) logger.warn({ file: e.file }, e.message);
    const fresh = await this.#retire(manifests, withheld);
    const added: Entry[] = [];
    for (const { loaded, fp } of fresh) {
      const name = loaded.manifest.name;
      if (ctx.tools.get(name) !== undefined) {
        // Held by a tool this loader did not register (a built-in, a policy's): refused, loudly, so
        // neither shadows the other unseen (docs/decisions.md, "No shadowing").
        logger.warn(
          { file: loaded.file, tool: name },
          `${loaded.file}: name: tool "${name}" is already registered by toolgate itself or a policy; this manifest is not served (rename it)`,
        );
        continue;
      }
      if (loaded.manifest.module.abi === 'hyper-mcp') {
        await this.#addPlugin(loaded, fp, withheld);
        continue;
      }
      const entry = this.#add(loaded, fp);
      if (entry !== undefined) added.push(entry);
    }
    const compile = this.#opts.compile ?? 'background';
    if (compile === 'now') await Promise.all(added.map((e) => e.warm()));
    else if (compile === 'background' && added.length > 0) {
      // A JavaScript tool's engine is a 12 MB module: its compile runs on V8's background threads, so
      // started now it is done by the first tools/call, where it would otherwise start (docs/decisions.md,
      // "JavaScript tools: the first call"). Its validators wait for the warm-up below as before.
      for (const e of added) e.loadEarly?.();
      this.#warmCodeOnce(fresh.map((f) => f.loaded));
      const after = this.#opts.backgroundAfter ?? Promise.resolve();
      this.#warming = after.then(() => this.#warmInTurn(added));
    }
  }

  /**
   * Unregisters every entry whose file is gone or changed, before anything new registers: a tool
   * renamed or moved from one file to another in one sync must not find its old self in the way.
   * Returns the manifests to (re)register, with their fingerprints.
   */
  async #retire(
    manifests: readonly LoadedManifest[],
    withheld: WithheldNames,
  ): Promise<{ loaded: LoadedManifest; fp: string }[]> {
    const fresh: { loaded: LoadedManifest; fp: string }[] = [];
    const keep = new Set<string>();
    for (const loaded of manifests) {
      const fp = fingerprint(loaded, withheld);
      const old = this.#entries.get(loaded.file);
      if (old !== undefined && old.fingerprint === fp && !old.handle.disposed) keep.add(loaded.file);
      else fresh.push({ loaded, fp });
    }
    for (const [file, entry] of [...this.#entries]) {
      if (keep.has(file)) continue;
      this.#entries.delete(file);
      await entry.handle.dispose();
    }
    return fresh;
  }

  /**
   * The background warm-up: one tool at a time, each started in a later turn of the event loop and
   * only while no manifest tool's call runs, so what a call needs (its own tool's warm-up, which
   * the call starts itself) goes first. An entry replaced or removed while waiting is not compiled
   * at all (nothing would close it).
   */
  async #warmInTurn(entries: Entry[]): Promise<void> {
    const quiet = () => this.#quiet();
    for (const e of entries) {
      await quiet();
      if (this.#closed || this.#warmStopped) return;
      if (e.handle.disposed) continue;
      await e.warm(quiet);
    }
  }

  /**
   * A later turn in which no manifest tool's call runs, as the background warm-up waits for; at
   * once when the warm-ups have stopped (shutdown) or the loader is closed. Serve writes its cache
   * entries in these turns (cache-files/later.ts).
   */
  async quietTurn(): Promise<void> {
    if (this.#closed || this.#warmStopped) return;
    await this.#quiet();
  }

  /** A later turn of the event loop in which no manifest tool's call runs. */
  async #quiet(): Promise<void> {
    await this.#calls.idle();
    await nextTurn();
    await this.#calls.idle();
  }

  /**
   * The sandbox's code, loaded once `codeAfter` resolves, one step per quiet turn: a request that
   * comes meanwhile waits for one step at most, and a call's own load goes first (a step waits
   * while a call runs). Stops when the warm-ups stop or the loader closes. Once per loader: later
   * syncs find the code loaded.
   */
  #warmCodeOnce(manifests: readonly LoadedManifest[]): void {
    const after = this.#opts.codeAfter;
    if (after === undefined || this.#codeWarming !== undefined) return;
    const steps = sandboxCodeWarmUp(manifests);
    if (steps.length === 0) return;
    this.#codeWarming = after.then(async () => {
      for (const step of steps) {
        await this.#quiet();
        if (this.#closed || this.#warmStopped) return;
        const t0 = performance.now();
        try {
          await step.run();
        } catch (err) {
          // the tool's own first call loads it again and reports the failure to its caller
          this.#opts.logger.debug({ err, step: step.name }, 'sandbox code not loaded ahead of a call');
          return;
        }
        this.#opts.logger.debug(
          { step: step.name, ms: Math.round(performance.now() - t0) },
          'sandbox code loaded ahead of a call',
        );
      }
    });
  }

  /**
   * module.abi: hyper-mcp: the module is described now (its tools are not known before), under the
   * manifest's limits; each described tool, operation and surface registers in one child plugin.
   * A tool the registry refuses (a name another manifest took) is reported; the others load.
   */
  async #addPlugin(loaded: LoadedManifest, fp: string, withheld: WithheldNames): Promise<void> {
    const { ctx, logger } = this.#opts;
    const name = loaded.manifest.name;
    let plugin;
    try {
      plugin = await pluginFromManifest(loaded, { logger });
    } catch (err) {
      logger.warn({ file: loaded.file }, messageOf(err));
      return;
    }
    withholdNames(plugin, withheld);
    for (const p of plugin.problems) logger.warn({ file: p.file }, p.message);
    let handle: PluginHandle;
    try {
      handle = ctx.plugin(
        (c) => {
          c.effect(() => () => plugin.dispose());
          for (const def of plugin.tools) {
            try {
              c.tool(def);
            } catch (err) {
              logger.warn(
                { err, file: loaded.file },
                `${loaded.file}: tool "${def.name}" of plugin "${name}" not registered`,
              );
            }
          }
          for (const op of plugin.operations) c.effect(() => c.tools.registerOperation(op));
          const surface = plugin.surface;
          if (surface !== undefined) c.effect(() => c.tools.registerSurface(surface));
        },
        undefined,
        { name: `manifest:${name}` },
      );
    } catch (err) {
      logger.warn({ err, file: loaded.file }, `plugin "${name}" could not be registered`);
      await plugin.dispose();
      return;
    }
    const served = servedOf(loaded);
    this.#entries.set(loaded.file, { name, served, fingerprint: fp, handle, warm: async () => {} });
    for (const shared of sharedKeys(ctx.tools.surfaces()).filter((k) => k.plugins.includes(name)))
      logger.warn(
        { file: loaded.file },
        `${loaded.file}: ${shared.kind} "${shared.key}" is served by plugins ${shared.plugins.map((p) => `"${p}"`).join(' and ')}; a ${shared.kind} two plugins serve is served by neither`,
      );
  }

  #add(loaded: LoadedManifest, fp: string): Entry | undefined {
    const { ctx, logger } = this.#opts;
    const name = loaded.manifest.name;
    let handle: PluginHandle;
    const made = lazyTool(loaded, logger, this.#calls);
    try {
      handle = ctx.plugin((c) => void c.tool(made.def), undefined, { name: `manifest:${name}` });
    } catch (err) {
      logger.warn({ err, file: loaded.file }, `tool "${name}" could not be registered`);
      return undefined;
    }
    const served = servedOf(loaded);
    const { file } = loaded; // the closures below keep the path, not the loaded manifest and its bytes
    const entry: Entry = {
      name,
      served,
      fingerprint: fp,
      handle,
      ...(loaded.manifest.module.abi === 'component'
        ? { loadEarly: () => void made.warm().catch(() => undefined) } // a refusal is reported by warm below
        : {}),
      warm: async (beforeChecks) => {
        try {
          await made.warm();
          // Validators compile on first use (start-up does not pay for them); a background warm-up
          // compiles them too, so the tool's first call does not (~10-30 ms each). In the background
          // that waits until no call runs: a call of this tool that started the module's compile
          // resumes with it, and must not wait behind a second validator (docs/decisions.md, issue 27).
          await beforeChecks?.();
          const tool = ctx.tools.get(name);
          tool?.checkArguments({});
          tool?.checkOutput(null);
        } catch (err) {
          // The sandbox refused the module: no call could ever succeed, so take it off the list.
          logger.warn({ err, file }, `tool "${name}" was refused by the sandbox and is unregistered`);
          if (this.#entries.get(file) === entry) this.#entries.delete(file);
          await handle.dispose();
        }
      },
    };
    this.#entries.set(loaded.file, entry);
    return entry;
  }
}

/** A folder is watched whole; manifest files named directly are watched through their folder, by name. */
function watchTargets(paths: readonly string[]): WatchTarget[] {
  const dirs: WatchTarget[] = [];
  const files = new Map<string, string[]>();
  for (const path of paths) {
    let isFile = false;
    try {
      isFile = statSync(path).isFile();
    } catch {
      /* missing: watched as a folder that may appear */
    }
    if (!isFile) dirs.push({ dir: path });
    else files.set(dirname(path), [...(files.get(dirname(path)) ?? []), basename(path)]);
  }
  return [...dirs, ...[...files].map(([dir, names]) => ({ dir, names }))];
}

/** What `list` and the /v1 API say about a served manifest. */
function servedOf(loaded: LoadedManifest): ServedManifest {
  return {
    name: loaded.manifest.name,
    version: loaded.manifest.version,
    file: loaded.file,
    sha256: loaded.sha256,
    pinned: loaded.manifest.module.sha256 !== undefined,
    capabilities: describeCapabilities(loaded.manifest),
  };
}
