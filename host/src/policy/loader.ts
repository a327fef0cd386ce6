// Mounts a policy set folder into a plugin Context and keeps it current: a reload builds the new
// set beside the old one, swaps it in at one point in time, and leaves the old one serving when
// anything about the new one is wrong.
import { watch } from 'node:fs';
import { messageOf } from '../errors/index.js';
import type { Context } from '../plugin/index.js';
import { policyContext } from './context.js';
import { PolicyConfigError } from './errors.js';
import { parsePolicySet, type ParsedSet } from './set-file.js';
import { defaultPolicyServices, type PolicyServices } from './services.js';
import { PolicySet, SetSwitch } from './switch.js';

export type ReloadResult = { ok: true; generation: number; entries: string[] } | { ok: false; error: string };

export interface PolicyController {
  readonly dir: string;
  /** Counts successful loads: 1 after mounting, +1 per accepted reload. */
  readonly generation: number;
  /** Ids of the enabled entries now serving, in order. */
  readonly entries: readonly string[];
  /** Calls currently pinned to a set (in flight); 0 when idle. */
  readonly pinnedCalls: number;
  /** Reads the folder again; on any problem the old set keeps serving and the result says why. */
  reload(): Promise<ReloadResult>;
  dispose(): Promise<void>;
}

export interface MountOptions {
  services?: PolicyServices;
  /** Reload when files in the folder change (fs.watch, debounced). */
  watch?: boolean;
  debounceMs?: number;
}

/** The id of the loader's own listeners (they pin calls to a set); it shows in decision trails. */
export const PIN_ID = 'policy-set';
const DRY_RUN_PIN_MS = 5_000;

/** PluginError wraps the real cause; the cause names the file and the entry. */
function reasonOf(err: unknown): string {
  return messageOf(err instanceof Error && err.cause instanceof PolicyConfigError ? err.cause : err);
}

export async function mountPolicies(ctx: Context, dir: string, options: MountOptions = {}): Promise<PolicyController> {
  const services = options.services ?? defaultPolicyServices();
  const log = services.logger;
  const first = await parsePolicySet(dir);
  const sw = new SetSwitch((set) => {
    void set.handle?.dispose();
  });
  let root: Context | undefined;
  const handle = ctx.plugin(
    (c: Context) => {
      root = c;
      // Registered before any set's listeners, so it sees every call first and pins it.
      c.on('tools/pre-execute', PIN_ID, (exec, next, info) => {
        sw.enter(exec.callId);
        // A dry run (policy explain) never reaches tools/result; its pin only has to outlive the guards.
        if (info.dryRun) setTimeout(() => sw.leave(exec.callId), DRY_RUN_PIN_MS).unref();
        return next();
      });
      // Observers run synchronously in one loop; the unpin waits until all of them (the set's too) ran.
      c.on('tools/result', PIN_ID, (_result, record) => {
        queueMicrotask(() => sw.leave(record.callId));
      });
      c.effect(() => {
        const pipeline = c.pipeline;
        const router = services.approvals;
        const previous = pipeline.approval;
        if (previous === router) return undefined;
        const previousBase = router.base;
        router.base = previous;
        pipeline.approval = router;
        return () => {
          if (pipeline.approval === router) pipeline.approval = previous;
          router.base = previousBase;
        };
      });
    },
    undefined,
    { name: 'policies' },
  );
  const parent = root as Context | undefined;
  if (parent === undefined) throw new Error('policy loader: the plugin context was not created');
  const firstListener = ctx.pipeline.hooks.snapshot()['tools/pre-execute'][0]?.id;
  if (firstListener !== PIN_ID) {
    // Pinning is atomic because it runs in the same turn as the call's hook snapshot. A listener
    // ahead of it that awaits before next() opens a window in which a reload could land.
    log.warn({ dir, firstListener }, 'policy set mounted after another pre-execute listener; mount policies first for atomic reloads');
  }

  let generation = 0;
  const mount = async (parsed: ParsedSet): Promise<PolicySet> => {
    const gen = generation + 1;
    const enabled = parsed.entries.filter((e) => !e.disabled);
    const set = new PolicySet(gen, enabled.map((e) => e.id));
    const h = parent.plugin(
      async (setCtx: Context) => {
        // In order: an entry that fails stops the set here and undoes the entries before it.
        for (const entry of enabled) {
          const label = `entries[${entry.index}] (id "${entry.id}", use ${entry.use})`;
          const scope = { id: entry.id, inject: entry.module.inject ?? [], set, sw, services };
          try {
            const child = setCtx.plugin((c: Context) => entry.module.apply(policyContext(c, scope), entry.config), undefined, { name: entry.id });
            await child.ready;
          } catch (err) {
            throw new PolicyConfigError(entry.file, `${label} failed to load: ${err instanceof Error && err.cause instanceof Error ? err.cause.message : messageOf(err)}`);
          }
        }
      },
      undefined,
      { name: `set-${gen}` },
    );
    set.handle = h;
    try {
      await h.ready;
    } catch (err) {
      await h.dispose();
      // Until it is swapped in, nothing of a half-mounted set acted on any call (see context.ts).
      throw err instanceof Error && err.cause instanceof PolicyConfigError ? err.cause : err;
    }
    generation = gen;
    return set;
  };

  try {
    sw.swap(await mount(first));
  } catch (err) {
    await handle.dispose();
    throw err;
  }

  let queue: Promise<unknown> = Promise.resolve();
  const reloadOnce = async (): Promise<ReloadResult> => {
    if (handle.disposed) return { ok: false, error: 'the policy set was disposed' };
    let set: PolicySet;
    try {
      set = await mount(await parsePolicySet(dir));
    } catch (err) {
      const error = reasonOf(err);
      log.error({ dir, error }, 'policy reload rejected; the previous set keeps serving');
      services.events.emit({ type: 'rejected', dir, error });
      return { ok: false, error };
    }
    if (handle.disposed) {
      await set.handle?.dispose();
      return { ok: false, error: 'the policy set was disposed during reload' };
    }
    sw.swap(set);
    log.info({ dir, generation: set.generation, entries: set.entries }, 'policy set reloaded');
    services.events.emit({ type: 'changed', dir, generation: set.generation, entries: [...set.entries] });
    return { ok: true, generation: set.generation, entries: [...set.entries] };
  };
  const reload = (): Promise<ReloadResult> => {
    const run = queue.then(reloadOnce, reloadOnce);
    queue = run.catch(() => undefined);
    return run;
  };

  if (options.watch === true) {
    const debounce = options.debounceMs ?? 150;
    parent.effect(() => {
      let timer: NodeJS.Timeout | undefined;
      const watcher = watch(dir, { persistent: false }, () => {
        clearTimeout(timer);
        timer = setTimeout(() => void reload(), debounce);
        timer.unref();
      });
      watcher.on('error', (err) => log.warn({ err, dir }, 'watching the policy folder failed; reloads stop'));
      return () => {
        clearTimeout(timer);
        watcher.close();
      };
    });
  }

  return {
    dir,
    get generation() {
      return sw.current?.generation ?? generation;
    },
    get entries() {
      return sw.current?.entries ?? [];
    },
    get pinnedCalls() {
      return sw.pinned;
    },
    reload,
    dispose: () => handle.dispose(),
  };
}

/**
 * Mounts a policy set into `ctx` (the runtime's PolicyLoader). The extra options are optional, so
 * the runtime can pass its own services (built from its CliIO) and the server can turn watching on.
 */
export type PolicyLoaderFn = (
  ctx: Context,
  dir: string,
  options: { explicit: boolean; services?: PolicyServices; watch?: boolean },
) => Promise<void>;

export function createPolicyLoader(options: MountOptions & { onMount?: (c: PolicyController) => void } = {}): PolicyLoaderFn {
  return async (ctx, dir, call) => {
    const services = call.services ?? options.services;
    const watch = call.watch ?? options.watch;
    const controller = await mountPolicies(ctx, dir, {
      ...options,
      ...(services !== undefined ? { services } : {}),
      ...(watch !== undefined ? { watch } : {}),
    });
    options.onMount?.(controller);
  };
}

/** Mounts with the services passed in (else the process-wide ones) and no watching unless asked. */
export const policyLoader: PolicyLoaderFn = (ctx, dir, opts) => createPolicyLoader()(ctx, dir, opts);
