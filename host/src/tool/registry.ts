// The set of callable tools. register() returns the only way to remove what it added.
import { ToolDefinitionError } from './definition-error.js';
import { defineTool, type Tool } from './define.js';
import type { ServedSurface, ToolDefinition } from './types.js';

export type ToolChange = { kind: 'added' | 'removed'; name: string };
type ErrorSink = (err: unknown, context: string) => void;

export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();
  /** Calls the pipeline runs for what is not a tool (a module's resource reads, prompts, completions). */
  readonly #operations = new Map<string, Tool>();
  readonly #surfaces = new Set<ServedSurface>();
  readonly #listeners = new Set<(change: ToolChange) => void>();
  readonly #onError: ErrorSink;

  /** `onError` receives what must not be thrown: dispose() failures and listener errors. */
  constructor(options: { onError?: ErrorSink } = {}) {
    this.#onError = options.onError ?? (() => {});
  }

  /**
   * Checks the definition completely before adding anything, so a refused tool leaves no trace.
   * The disposer unregisters and awaits the tool's dispose(); calling it twice does nothing.
   */
  register(def: ToolDefinition | Tool): () => Promise<void> {
    const tool = defineTool(def as ToolDefinition);
    if (this.#tools.has(tool.name) || this.#operations.has(tool.name))
      throw new ToolDefinitionError(tool.name, 'name', 'a tool with this name is already registered');
    this.#tools.set(tool.name, tool);
    this.#emit({ kind: 'added', name: tool.name });
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      if (this.#tools.get(tool.name) === tool) {
        this.#tools.delete(tool.name);
        this.#emit({ kind: 'removed', name: tool.name });
      }
      try {
        await tool.definition.dispose?.();
      } catch (err) {
        this.#onError(err, `tool "${tool.name}" dispose() failed`);
      }
    };
  }

  /**
   * An operation: a Tool the pipeline can call (CallOptions.operation) and policies see by name,
   * that tools/list, the tool API and tools/call never show. Its name may not be a tool's either.
   */
  registerOperation(def: ToolDefinition | Tool): () => void {
    const tool = defineTool(def as ToolDefinition);
    if (this.#operations.has(tool.name) || this.#tools.has(tool.name))
      throw new ToolDefinitionError(tool.name, 'name', 'a tool or operation with this name is already registered');
    this.#operations.set(tool.name, tool);
    return () => {
      if (this.#operations.get(tool.name) === tool) this.#operations.delete(tool.name);
    };
  }

  operation(name: string): Tool | undefined {
    return this.#operations.get(name);
  }

  /** What a module serves besides tools; the function removes it. Listeners hear a change. */
  registerSurface(surface: ServedSurface): () => void {
    this.#surfaces.add(surface);
    this.#emit({ kind: 'added', name: surface.plugin });
    return () => {
      if (this.#surfaces.delete(surface)) this.#emit({ kind: 'removed', name: surface.plugin });
    };
  }

  /** In registration order. */
  surfaces(): ServedSurface[] {
    return [...this.#surfaces];
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  /** Tools in registration order. */
  list(): Tool[] {
    return [...this.#tools.values()];
  }

  /** Returns the unsubscribe function. */
  subscribe(listener: (change: ToolChange) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  #emit(change: ToolChange): void {
    for (const l of [...this.#listeners]) {
      try {
        l(change);
      } catch (err) {
        this.#onError(err, `tool registry listener failed on ${change.kind} "${change.name}"`);
      }
    }
  }
}
