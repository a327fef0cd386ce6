// The set of callable tools. register() returns the only way to remove what it added.
import { ToolDefinitionError } from './definition-error.js';
import { defineTool, type Tool } from './define.js';
import type { ToolDefinition } from './types.js';

export type ToolChange = { kind: 'added' | 'removed'; name: string };
type ErrorSink = (err: unknown, context: string) => void;

export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();
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
    if (this.#tools.has(tool.name)) throw new ToolDefinitionError(tool.name, 'name', 'a tool with this name is already registered');
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
