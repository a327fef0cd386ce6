// The root of a running toolgate: one registry, one pipeline, and a root plugin context that
// owns everything mounted into it.
import { pino, type Logger } from 'pino';
import { ToolRegistry } from '../tool/index.js';
import { Hooks, Pipeline, type ApprovalService } from '../pipeline/index.js';
import { Context } from './context.js';
import { Scope } from './scope.js';

export interface PluginHostOptions {
  logger?: Logger;
  approval?: ApprovalService;
  approvalTimeoutMs?: number;
  listenerTimeoutMs?: number;
}

export interface PluginHost {
  readonly root: Context;
  readonly tools: ToolRegistry;
  readonly hooks: Hooks;
  readonly pipeline: Pipeline;
  /** Unmounts every plugin and registration, newest first. */
  dispose(): Promise<void>;
}

export function createPluginHost(options: PluginHostOptions = {}): PluginHost {
  const logger = options.logger ?? pino({ level: 'silent' });
  const tools = new ToolRegistry({ onError: (err, context) => logger.warn({ err }, context) });
  const hooks = new Hooks();
  const pipeline = new Pipeline({
    tools,
    hooks,
    logger,
    ...(options.approval !== undefined ? { approval: options.approval } : {}),
    ...(options.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: options.approvalTimeoutMs } : {}),
    ...(options.listenerTimeoutMs !== undefined ? { listenerTimeoutMs: options.listenerTimeoutMs } : {}),
  });
  const scope = new Scope(logger);
  const root = new Context('root', { tools, hooks, pipeline }, scope, logger);
  return { root, tools, hooks, pipeline, dispose: () => scope.dispose() };
}
