// Mounts a policy set folder into a plugin Context and keeps it current: a reload builds the new
// set beside the old one, swaps it in at one point in time, and leaves the old one serving when
// anything about the new one is wrong.
import { watch } from 'node:fs';
import { messageOf } from '../errors/index.js';
import type { Context, PluginHandle } from '../plugin/index.js';
import { PolicyConfigError } from './errors.js';
import { parsePolicySet, type ParsedSet } from './set-file.js';
import { mountSet } from './set-mount.js';
import { defaultPolicyServices, type PolicyServices } from './services.js';
import { SetSwitch, type PolicySet } from './switch.js';
import { PIN_ID } from './pin-id.js';

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

export { PIN_ID } from './pin-id.js';
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
  const { handle, parent } = mountPinningRoot(ctx, sw, services);
  warnUnlessPinnedFirst(ctx, dir, log);

  let generation = 0;
  const mount = async (parsed: ParsedSet): Promise<PolicySet> => {
    const set = await mountSet(parent, parsed, generation + 1, sw, services);
    generation = set.generation;
    return set;
  };
  try {
    sw.swap(await mount(first));
  } catch (err) {
    await handle.dispose();
    throw err;
  }

  const reload = oneAtATime(async (): Promise<ReloadResult> => {
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
  });
  if (options.watch === true) watchPolicyFolder(parent, dir, options.debounceMs ?? 150, reload, log);

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
 * The plugin every set mounts under: it pins each call to the set current when it starts, and puts
 * the services' approval router in front of the pipeline's approval (undone on dispose).
 */
function mountPinningRoot(
  ctx: Context,
  sw: SetSwitch,
  services: PolicyServices,
): { handle: PluginHandle; parent: Context } {
  let root: Context | undefined;
  const handle = ctx.plugin(
    (c: Context) => {
      root = c;
      pinCalls(c, sw);
      c.effect(() => routeApprovals(c.pipeline, services.approvals));
    },
    undefined,
    { name: 'policies' },
  );
  const parent = root as Context | undefined;
  if (parent === undefined) throw new Error('policy loader: the plugin context was not created');
  return { handle, parent };
}

/** Registered before any set's listeners, so it sees every call first and pins it. */
function pinCalls(c: Context, sw: SetSwitch): void {
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
}

/** Puts `router` in front of the pipeline's approval, with the old one as its base; returns the undo. */
function routeApprovals(pipeline: Context['pipeline'], router: PolicyServices['approvals']): (() => void) | undefined {
  const previous = pipeline.approval;
  if (previous === router) return undefined;
  const previousBase = router.base;
  router.base = previous;
  pipeline.approval = router;
  return () => {
    if (pipeline.approval === router) pipeline.approval = previous;
    router.base = previousBase;
  };
}

function warnUnlessPinnedFirst(ctx: Context, dir: string, log: PolicyServices['logger']): void {
  const firstListener = ctx.pipeline.hooks.snapshot()['tools/pre-execute'][0]?.id;
  if (firstListener !== PIN_ID) {
    // Pinning is atomic because it runs in the same turn as the call's hook snapshot. A listener
    // ahead of it that awaits before next() opens a window in which a reload could land.
    log.warn(
      { dir, firstListener },
      'policy set mounted after another pre-execute listener; mount policies first for atomic reloads',
    );
  }
}

/** Runs `fn` after every earlier run has settled, so reloads never overlap. */
function oneAtATime<T>(fn: () => Promise<T>): () => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve();
  return () => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };
}

/** Reloads `debounceMs` after the folder last changed, until `parent` is disposed. */
function watchPolicyFolder(
  parent: Context,
  dir: string,
  debounceMs: number,
  reload: () => Promise<unknown>,
  log: PolicyServices['logger'],
): void {
  parent.effect(() => {
    let timer: NodeJS.Timeout | undefined;
    const watcher = watch(dir, { persistent: false }, () => {
      clearTimeout(timer);
      timer = setTimeout(() => void reload(), debounceMs);
      timer.unref();
    });
    watcher.on('error', (err) => log.warn({ err, dir }, 'watching the policy folder failed; reloads stop'));
    return () => {
      clearTimeout(timer);
      watcher.close();
    };
  });
}

/**
 * Mounts a policy set into `ctx` (the runtime calls it through cli/runtime.ts `loaders`). The extra options are optional, so
 * the runtime can pass its own services (built from its CliIO) and the server can turn watching on.
 */
export type PolicyLoader = (
  ctx: Context,
  dir: string,
  options: { explicit: boolean; services?: PolicyServices; watch?: boolean },
) => Promise<void>;

export function createPolicyLoader(
  options: MountOptions & { onMount?: (c: PolicyController) => void } = {},
): PolicyLoader {
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
export const policyLoader: PolicyLoader = (ctx, dir, opts) => createPolicyLoader()(ctx, dir, opts);
