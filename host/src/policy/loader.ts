// Mounts a policy set folder into a plugin Context and keeps it current: a reload builds the new
// set beside the old one, swaps it in at one point in time, and leaves the old one serving when
// anything about the new one is wrong.
import { watch } from 'node:fs';
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

function messageOf(err: unknown): string {
  // PluginError wraps the real cause; the cause names the file and the entry.
  if (err instanceof Error && err.cause instanceof PolicyConfigError) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
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
        sw.pinFor(exec.callId);
        if (info.dryRun) c.setTimeout(() => sw.unpin(exec.callId), DRY_RUN_PIN_MS);
        return next();
      });
      // Observers run synchronously in one loop; the unpin waits until all of them (the set's too) ran.
      c.on('tools/result', PIN_ID, (_result, record) => {
        queueMicrotask(() => sw.unpin(record.callId));
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
      throw new Error(messageOf(err), { cause: err });
    }
    generation = gen;
    return set;
  };

  try {
    sw.swap(await mount(first));
  } catch (err) {
    await handle.dispose();
    throw err instanceof Error && err.cause instanceof PolicyConfigError ? err.cause : err;
  }

  let queue: Promise<unknown> = Promise.resolve();
  const reloadOnce = async (): Promise<ReloadResult> => {
    if (handle.disposed) return { ok: false, error: 'the policy set was disposed' };
    let set: PolicySet;
    try {
      set = await mount(await parsePolicySet(dir));
    } catch (err) {
      const error = messageOf(err);
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
    reload,
    dispose: () => handle.dispose(),
  };
}

/** The PolicyLoader shape of host/src/cli/runtime.ts, bound to services and options. */
export type PolicyLoaderFn = (ctx: Context, dir: string, options: { explicit: boolean }) => Promise<void>;

export function createPolicyLoader(options: MountOptions & { onMount?: (c: PolicyController) => void } = {}): PolicyLoaderFn {
  return async (ctx, dir) => {
    const controller = await mountPolicies(ctx, dir, options);
    options.onMount?.(controller);
  };
}

/** Mounts with the process-wide services and no watching (what `toolgate call` needs). */
export const policyLoader: PolicyLoaderFn = (ctx, dir, opts) => createPolicyLoader({ services: defaultPolicyServices() })(ctx, dir, opts);
