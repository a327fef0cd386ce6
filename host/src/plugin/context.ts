// The context a native plugin receives. Everything registered through it is undone when the
// plugin is disposed, so a policy reload or an unload never leaves a listener behind.
import type { Logger } from 'pino';
import { messageOf, ToolgateError } from '../errors/index.js';
import { defineTool, type Disposer, type Tool, type ToolDefinition, type ToolRegistry } from '../tool/index.js';
import type {
  ClientRequestGuard,
  DeadlineRule,
  Guard,
  Hooks,
  Pipeline,
  Stage,
  StageListeners,
} from '../pipeline/index.js';
import { Scope } from './scope.js';

export type PluginApply<C> = (ctx: Context, config: C) => void | Promise<void>;
export interface PluginModule<C> {
  name: string;
  apply: PluginApply<C>;
}
export type Plugin<C> = PluginApply<C> | PluginModule<C>;

export interface PluginHandle {
  readonly name: string;
  /** Resolves when an async apply finished; rejects (after undoing it) with a PluginError. */
  readonly ready: Promise<void>;
  readonly disposed: boolean;
  /** Undoes everything the plugin (and its child plugins) registered, newest first. */
  dispose(): Promise<void>;
}

/** A plugin's apply failed; `plugin` is its name, `cause` the original error. */
export class PluginError extends ToolgateError<'PLUGIN_APPLY_FAILED'> {
  readonly plugin: string;
  constructor(plugin: string, cause: unknown) {
    super('PLUGIN_APPLY_FAILED', `plugin "${plugin}" failed to apply: ${messageOf(cause)}`, { cause });
    this.plugin = plugin;
  }
}

export interface HostParts {
  tools: ToolRegistry;
  hooks: Hooks;
  pipeline: Pipeline;
}

export class Context {
  readonly name: string;
  readonly logger: Logger;
  /** Read access for plugins that look tools up (e.g. to check capabilities). */
  readonly tools: ToolRegistry;
  readonly pipeline: Pipeline;
  readonly #parts: HostParts;
  readonly #scope: Scope;

  constructor(name: string, parts: HostParts, scope: Scope, logger: Logger) {
    this.name = name;
    this.#parts = parts;
    this.#scope = scope;
    this.logger = logger;
    this.tools = parts.tools;
    this.pipeline = parts.pipeline;
  }

  get disposed(): boolean {
    return this.#scope.disposed;
  }

  /** Registers a tool for the plugin's lifetime. */
  tool(def: ToolDefinition | Tool): Tool {
    this.#alive('tool()');
    const tool = defineTool(def as ToolDefinition);
    const unregister = this.#parts.tools.register(tool);
    this.#scope.add(`tool "${tool.name}" of plugin "${this.name}"`, unregister);
    return tool;
  }

  /** Adds a listener to a pipeline stage; the returned function removes it early. */
  on<S extends Stage>(stage: S, id: string, fn: StageListeners[S]): () => void {
    this.#alive('on()');
    const off = this.#parts.hooks.on(stage, id, fn);
    return this.#scope.add(`${stage} listener "${id}" of plugin "${this.name}"`, off);
  }

  guard(id: string, fn: Guard): () => void {
    this.#alive('guard()');
    const off = this.#parts.hooks.guard(id, fn);
    return this.#scope.add(`guard "${id}" of plugin "${this.name}"`, off);
  }

  /** Shortens the deadline of the calls `fn` returns a number for (the shortest rule wins). */
  deadline(id: string, fn: DeadlineRule): () => void {
    this.#alive('deadline()');
    const off = this.#parts.hooks.deadline(id, fn);
    return this.#scope.add(`deadline rule "${id}" of plugin "${this.name}"`, off);
  }

  /** Judges a running tool's elicitation, sampling and roots requests (a string denies the request). */
  clientRequest(id: string, fn: ClientRequestGuard): () => void {
    this.#alive('clientRequest()');
    const off = this.#parts.hooks.clientRequest(id, fn);
    return this.#scope.add(`client-request guard "${id}" of plugin "${this.name}"`, off);
  }

  /** Unref'd, so a plugin's timer never keeps the process alive; errors are logged. */
  setInterval(fn: () => void | Promise<void>, ms: number): () => void {
    this.#alive('setInterval()');
    const t = setInterval(() => this.#safely('interval', fn), ms);
    t.unref();
    return this.#scope.add(`interval of plugin "${this.name}"`, () => clearInterval(t));
  }

  setTimeout(fn: () => void | Promise<void>, ms: number): () => void {
    this.#alive('setTimeout()');
    const t = setTimeout(() => this.#safely('timeout', fn), ms);
    t.unref();
    return this.#scope.add(`timeout of plugin "${this.name}"`, () => clearTimeout(t));
  }

  /** Runs `fn` now; what it returns runs when the plugin is disposed. */
  effect(fn: () => Disposer | void): () => Promise<void> {
    this.#alive('effect()');
    const undo = fn();
    return this.#scope.add(`effect of plugin "${this.name}"`, typeof undo === 'function' ? undo : () => {});
  }

  /**
   * Mounts a child plugin; disposing this plugin disposes the child too. A synchronous apply that
   * throws is undone and rethrown as PluginError; an async one rejects `ready` the same way.
   */
  plugin<C>(plugin: PluginApply<C>, config: NoInfer<C>, options?: { name?: string }): PluginHandle;
  plugin<C>(plugin: PluginModule<C>, config: NoInfer<C>, options?: { name?: string }): PluginHandle;
  plugin<C>(plugin: Plugin<C>, config: C, options: { name?: string } = {}): PluginHandle {
    this.#alive('plugin()');
    const apply = typeof plugin === 'function' ? plugin : plugin?.apply;
    const own = options.name ?? (typeof plugin === 'function' ? plugin.name : plugin?.name) ?? '';
    const name = own === '' ? `${this.name}/anonymous` : `${this.name}/${own}`;
    if (typeof apply !== 'function')
      throw new PluginError(name, new TypeError('a plugin is a function or { name, apply }'));
    const scope = new Scope(this.logger);
    const child = new Context(name, this.#parts, scope, this.logger.child({ plugin: name }));
    const detach = this.#scope.add(`plugin "${name}"`, () => scope.dispose());
    const handle = {
      name,
      ready: Promise.resolve(),
      get disposed() {
        return scope.disposed;
      },
      dispose: detach,
    };
    const fail = (err: unknown): PluginError => {
      void detach();
      return err instanceof PluginError && err.plugin === name ? err : new PluginError(name, err);
    };
    let applied: void | Promise<void>;
    try {
      applied = apply(child, config);
    } catch (err) {
      throw fail(err);
    }
    if (applied instanceof Promise) {
      handle.ready = applied.then(
        () => undefined,
        (err: unknown) => {
          throw fail(err);
        },
      );
      handle.ready.catch(() => {}); // callers that never await ready must not crash the process
    }
    return handle;
  }

  #alive(what: string): void {
    if (this.#scope.disposed) throw new Error(`plugin "${this.name}": ${what} after the plugin was disposed`);
  }

  #safely(kind: string, fn: () => void | Promise<void>): void {
    try {
      const r = fn();
      if (r instanceof Promise)
        r.catch((err: unknown) => this.logger.warn({ err }, `${kind} of plugin "${this.name}" failed`));
    } catch (err) {
      this.logger.warn({ err }, `${kind} of plugin "${this.name}" failed`);
    }
  }
}
