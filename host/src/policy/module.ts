// What a policy is: a built-in or a JS module exporting `name`, optional `inject` and
// `apply(ctx, config)`. The ctx it gets is a plugin Context plus its entry id and the services it
// injected.
import type { z } from 'zod';
import type { Context } from '../plugin/index.js';
import type { InjectedServices, ServiceName } from './services.js';

export type PolicyContext = Context & {
  /** The entry's id from the YAML file; built-ins register their listeners under it. */
  readonly entryId: string;
  /** Only the services the module named in `inject`. */
  readonly services: Readonly<InjectedServices>;
  /** True while `callId` is a running call pinned to this entry's set (it never pins a call). */
  ownsCall(callId: string): boolean;
};

export interface PolicyModule<C = unknown> {
  readonly name: string;
  readonly inject?: readonly ServiceName[];
  /** Built-ins validate `with` against this before anything mounts, so errors name the key. */
  readonly config?: z.ZodType<C>;
  apply(ctx: PolicyContext, config: C): void | Promise<void>;
}

/** A service the module injected; a missing one is a bug in the module's `inject` list. */
export function service<K extends ServiceName>(ctx: PolicyContext, name: K): NonNullable<InjectedServices[K]> {
  const s = ctx.services[name];
  if (s === undefined) throw new Error(`policy "${ctx.entryId}" uses service "${name}" without listing it in inject`);
  return s as NonNullable<InjectedServices[K]>;
}

export function definePolicy<C>(module: PolicyModule<C>): PolicyModule<C> {
  return module;
}
