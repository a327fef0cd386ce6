// The Context a policy entry gets: the plugin Context it was mounted with, except that every
// listener and guard it registers acts only on calls pinned to its own set (see switch.ts), is
// named after the entry id, and can be removed the moment the set retires.
import type { Context, Plugin, PluginApply, PluginHandle } from '../plugin/index.js';
import type { ClientRequestGuard, DeadlineRule, Guard, Stage, StageListeners } from '../pipeline/index.js';
import type { PolicyContext } from './module.js';
import type { InjectedServices, PolicyServices, ServiceName } from './services.js';
import type { PolicySet, SetSwitch } from './switch.js';

type Gate = <S extends Stage>(stage: S, fn: StageListeners[S]) => StageListeners[S];

function gateFor(owns: (callId: string) => boolean): Gate {
  const table: { [S in Stage]: (fn: StageListeners[S]) => StageListeners[S] } = {
    'tools/pre-execute': (fn) => (exec, next, info) => (owns(exec.callId) ? fn(exec, next, info) : next()),
    'tools/execute': (fn) => (exec, next, tool) => (owns(exec.callId) ? fn(exec, next, tool) : next()),
    'tools/post-execute': (fn) => (call) => (owns(call.exec.callId) ? fn(call) : undefined),
    'tools/result': (fn) => (result, record) => (owns(record.callId) ? fn(result, record) : undefined),
  };
  return <S extends Stage>(stage: S, fn: StageListeners[S]): StageListeners[S] => {
    const wrap = table[stage] as unknown as ((f: StageListeners[S]) => StageListeners[S]) | undefined;
    // An unknown stage goes through unwrapped so Hooks.on reports it.
    return wrap === undefined ? fn : wrap(fn);
  };
}

export interface EntryScope {
  readonly id: string;
  readonly inject: readonly ServiceName[];
  readonly set: PolicySet;
  readonly sw: SetSwitch;
  readonly services: PolicyServices;
}

export function policyContext(ctx: Context, scope: EntryScope): PolicyContext {
  const injected: InjectedServices = {};
  for (const name of scope.inject) Object.assign(injected, { [name]: scope.services[name] });
  Object.freeze(injected);
  const owns = (callId: string): boolean => scope.sw.pinFor(callId) === scope.set;
  const gate = gateFor(owns);
  const listenerId = (id: string): string => (id === scope.id || id === '' ? scope.id : `${scope.id}/${id}`);
  const wrapApply =
    <C>(apply: PluginApply<C>): PluginApply<C> =>
    (child, config) =>
      apply(policyContext(child, scope), config);

  const overrides = {
    entryId: scope.id,
    ownsCall: (callId: string): boolean => scope.sw.setOf(callId) === scope.set,
    services: injected,
    on<S extends Stage>(stage: S, id: string, fn: StageListeners[S]): () => void {
      const off = ctx.on(stage, listenerId(id), gate(stage, fn));
      scope.set.offs.push(off);
      return off;
    },
    guard(id: string, fn: Guard): () => void {
      const off = ctx.guard(listenerId(id), (exec, tool) => (owns(exec.callId) ? fn(exec, tool) : undefined));
      scope.set.offs.push(off);
      return off;
    },
    deadline(id: string, fn: DeadlineRule): () => void {
      const off = ctx.deadline(listenerId(id), (exec, tool) => (owns(exec.callId) ? fn(exec, tool) : undefined));
      scope.set.offs.push(off);
      return off;
    },
    clientRequest(id: string, fn: ClientRequestGuard): () => void {
      const off = ctx.clientRequest(listenerId(id), (req, exec, tool) =>
        owns(exec.callId) ? fn(req, exec, tool) : undefined,
      );
      scope.set.offs.push(off);
      return off;
    },
    plugin<C>(plugin: Plugin<C>, config: C, options: { name?: string } = {}): PluginHandle {
      if (typeof plugin === 'function')
        return ctx.plugin(wrapApply(plugin), config, { name: options.name ?? plugin.name, ...options });
      if (typeof plugin === 'object' && plugin !== null && typeof plugin.apply === 'function') {
        return ctx.plugin({ name: plugin.name, apply: wrapApply(plugin.apply) }, config, options);
      }
      return ctx.plugin(plugin, config, options); // reports the malformed plugin
    },
  };
  return new Proxy(ctx, {
    get(target, prop) {
      if (Object.hasOwn(overrides, prop)) return overrides[prop as keyof typeof overrides];
      const value: unknown = Reflect.get(target, prop, target);
      // Context keeps its state in private fields, so its methods must run on the real object.
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as PolicyContext;
}
