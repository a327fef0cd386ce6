// A 2026-07-28 tools/call run as a task (the MCP Tasks extension, docs/mcp.md "Tasks"): the
// request is answered at once with the task, and the call runs in the background through the same
// pipeline, under its own deadline. When a run needs the client (an ask, a tool's question) the
// task waits in input_required; once tasks/update has answered every question the call runs again
// with the answers, exactly as an input round re-runs it (input-rounds.ts).
import { MissingRequiredClientCapabilityError, ProtocolError, type ServerContext } from '@modelcontextprotocol/server';
import { messageOf } from '../errors/index.js';
import { whenAborted } from '../signals/index.js';
import type { ToolExecution } from '../tool/index.js';
import type { SidecarCore } from './core.js';
import { boundedResponses, type RoundPayload, type RoundPrincipal } from './input-rounds.js';
import { runCall, type RunEnd } from './modern-call.js';
import type { ClientEnvelope } from './modern-envelope.js';
import { RpcError } from './rpc-error.js';
import { TASKS_EXTENSION, taskOwnerOf, type Task, type TaskStore } from './task-store.js';
import type { TraceContext } from '../pipeline/index.js';

/** Whether this request's own envelope declares the Tasks extension (the decision is per request). */
export function declaresTasks(envelope: ClientEnvelope): boolean {
  const ext = envelope.clientCapabilities?.['extensions'];
  return (
    typeof ext === 'object' && ext !== null && typeof (ext as Record<string, unknown>)[TASKS_EXTENSION] === 'object'
  );
}

/** -32021 naming the extension, for a request that needs it and did not declare it. */
export function tasksRequired(what: string): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } as never,
    `${what} needs the client's ${TASKS_EXTENSION} extension, which the request did not declare`,
  );
}

export interface TaskCall {
  core: SidecarCore;
  principal: RoundPrincipal;
  name: string;
  args: Record<string, unknown>;
  envelope: ClientEnvelope;
  execution: ToolExecution;
  trace?: TraceContext;
}

/** A task's own fields, as CreateTaskResult and tasks/get show them. */
export function taskFields(
  store: TaskStore,
  task: Pick<Task, 'id' | 'status' | 'createdAt' | 'updatedAt'>,
): Record<string, unknown> {
  return {
    taskId: task.id,
    status: task.status,
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.updatedAt).toISOString(),
    ttlMs: store.limits.ttlMs,
    pollIntervalMs: store.limits.pollIntervalMs,
  };
}

/** The flat CreateTaskResult. */
export function createdResult(store: TaskStore, task: Task): Record<string, unknown> {
  return { resultType: 'task', ...taskFields(store, task) };
}

/** A refusal at the cap (-32000) stops what was started for the task. */
async function limited<T>(fn: () => Promise<T>, stop: AbortController): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    stop.abort(err);
    throw err;
  }
}

function newTask(store: TaskStore, c: TaskCall, stop: AbortController): Promise<Task> {
  return limited(
    () =>
      store.create(taskOwnerOf(c.principal), stop, {
        name: c.name,
        args: c.args,
        envelope: c.envelope,
        ...(c.trace !== undefined ? { trace: c.trace } : {}),
      }),
    stop,
  );
}

/**
 * Answers a tools/call that gets a task. With `execution.syncMs` the call first runs as an ordinary
 * request for that long: questions it asks then are an ordinary input round (no task yet), and a
 * result it reaches then is the answer (an optional tool) or a task already completed (required).
 */
export async function callAsTask(c: TaskCall, ctx: ServerContext): Promise<Record<string, unknown>> {
  const store = c.core.tasks;
  const stop = new AbortController();
  await limited(() => store.assertRoom(taskOwnerOf(c.principal)), stop);
  const run = (): Promise<RunEnd> =>
    runCall({
      core: c.core,
      principal: c.principal,
      name: c.name,
      args: c.args,
      link: { envelope: c.envelope, ...(c.trace !== undefined ? { trace: c.trace } : {}) },
      state: ctx.mcpReq.requestState<RoundPayload>(),
      responses: boundedResponses(ctx.mcpReq.inputResponses),
      signal: stop.signal,
    });
  if (c.execution.syncMs === 0) {
    const task = await newTask(store, c, stop);
    drive(c.core, task, run());
    return createdResult(store, task);
  }
  // While the request is still the call's only link, a client that goes away stops it.
  const unlink = whenAborted(ctx.mcpReq.signal, () => stop.abort(ctx.mcpReq.signal.reason));
  const running = run();
  let timer: NodeJS.Timeout | undefined;
  const early = await Promise.race([
    running,
    new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), c.execution.syncMs))),
  ]).finally(() => {
    clearTimeout(timer);
    unlink();
  });
  if (early?.kind === 'questions') return early.round.inputRequired(early.open);
  if (early !== undefined && c.execution.task === 'optional') return early.result;
  const task = await newTask(store, c, stop);
  drive(c.core, task, early !== undefined ? Promise.resolve(early) : running);
  return createdResult(store, task);
}

/** Runs the task's call again with every answer tasks/update gathered. */
export function resumeTask(core: SidecarCore, task: Task): void {
  const { payload, answers } = task;
  core.tasks.resume(task);
  drive(
    core,
    task,
    runCall({
      core,
      principal: { id: task.owner, taskOwner: task.owner },
      name: task.call.name,
      args: task.call.args,
      link: { envelope: task.call.envelope, ...(task.call.trace !== undefined ? { trace: task.call.trace } : {}) },
      state: payload,
      responses: answers,
      signal: task.stop.signal,
    }),
  );
}

/** The JSON-RPC code a synchronous call would have answered with. */
function rpcCodeOf(err: unknown): number {
  if (err instanceof RpcError) return err.rpcCode;
  if (err instanceof ProtocolError && Number.isSafeInteger(err.code)) return err.code;
  return -32603;
}

/**
 * Where one run leaves the task. A tool's error is a completed task with an isError result (the MCP
 * rule for tool errors; a TIMEOUT is one); the task fails when the call could not produce a tool
 * result: what a synchronous call answers as a JSON-RPC error, and INVALID_OUTPUT (the module broke
 * its output contract, so there is no result to show).
 */
function drive(core: SidecarCore, task: Task, running: Promise<RunEnd>): void {
  const store = core.tasks;
  running
    .then(
      (end) => {
        if (end.kind === 'questions') store.ask(task, end.open.inputRequests, end.open.payload);
        else if (end.errorCode === 'INVALID_OUTPUT')
          store.fail(task, -32603, errorMessage(end.result) ?? 'the tool broke its output contract');
        else store.complete(task, end.result);
      },
      (err: unknown) => store.fail(task, rpcCodeOf(err), messageOf(err)),
    )
    .catch((err: unknown) => core.logger.warn({ err, taskId: task.id }, 'task not settled'));
}

function errorMessage(result: Record<string, unknown>): string | undefined {
  const meta = result['_meta'] as Record<string, unknown> | undefined;
  const error = meta?.['toolgate/error'] as { message?: unknown } | undefined;
  return typeof error?.message === 'string' ? error.message : undefined;
}
