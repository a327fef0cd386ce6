// Real pipelines over real registries for the pipeline tests; nothing here is a stand-in.
import { Hooks, Pipeline, type ApprovalService, type PipelineLogger } from '../../host/src/pipeline/index.js';
import { ToolRegistry, type Json, type JsonObject, type ToolDefinition } from '../../host/src/tool/index.js';

export interface Harness {
  pipeline: Pipeline;
  hooks: Hooks;
  tools: ToolRegistry;
  logs: { level: string; msg: string | undefined }[];
}

export function harness(
  options: { approval?: ApprovalService; approvalTimeoutMs?: number; listenerTimeoutMs?: number } = {},
): Harness {
  const logs: Harness['logs'] = [];
  const logger: PipelineLogger = {
    warn: (_o, msg) => void logs.push({ level: 'warn', msg }),
    error: (_o, msg) => void logs.push({ level: 'error', msg }),
  };
  const tools = new ToolRegistry();
  const hooks = new Hooks();
  const pipeline = new Pipeline({ tools, hooks, logger, ...options });
  return { pipeline, hooks, tools, logs };
}

/** A tool that records each body run and returns what `body` returns (default: its arguments). */
export function recordingTool(
  over: Partial<ToolDefinition> & {
    body?: (args: Readonly<JsonObject>, signal: AbortSignal) => Promise<Json> | Json;
  } = {},
): ToolDefinition & { runs: Readonly<JsonObject>[] } {
  const runs: Readonly<JsonObject>[] = [];
  const { body, ...rest } = over;
  return {
    name: 'rec',
    description: 'records its calls',
    parameters: { path: { type: 'string' }, n: { type: 'integer' } },
    execute: (args, exec) => {
      runs.push(args);
      return body ? body(args, exec.signal) : { echoed: args };
    },
    ...rest,
    runs,
  };
}

export function text(result: { content: { type: string; text?: string }[] }): string {
  return result.content.map((b) => b.text ?? '').join('\n');
}

/** Resolves after `ms`; used to prove a promise is still pending, never as a result. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
