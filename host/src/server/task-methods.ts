// tasks/get, tasks/update and tasks/cancel on a 2026-07-28 server (the MCP Tasks extension). The
// SDK v2 has no tasks runtime, so they are custom methods (the 3-argument setRequestHandler, which
// is also what lets these names through its era gate). Each one answers only a request that
// declares the extension (-32021 otherwise), and only about the asking principal's own tasks: an
// unknown, expired or foreign taskId is the same -32602. tasks/result and tasks/list stay
// unregistered, so the SDK answers them -32601.
import { ProtocolError, type Server, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { SidecarCore } from './core.js';
import { answerFor, boundedResponses, type RoundPrincipal } from './input-rounds.js';
import { envelopeOf } from './modern-envelope.js';
import { declaresTasks, resumeTask, taskFields, tasksRequired } from './task-calls.js';
import type { TaskView } from './shared-tasks.js';
import { taskOwnerOf, type Task, type TaskStore } from './task-store.js';

const TaskParams = z.looseObject({ taskId: z.string().min(1).max(128) });

/** What tasks/get shows: never the run's state; the inlined result is the call's own. */
function detailed(store: TaskStore, task: TaskView): Record<string, unknown> {
  return {
    ...taskFields(store, task),
    ...(task.status === 'input_required' && task.inputRequests !== undefined
      ? { inputRequests: task.inputRequests }
      : {}),
    ...(task.status === 'completed' && task.result !== undefined ? { result: task.result } : {}),
    ...(task.status === 'failed' && task.error !== undefined ? { error: task.error } : {}),
  };
}

/**
 * Takes the answers that fit an open question (its key, and the shape of an answer to its method);
 * the rest are ignored. Returns true when no question is left open.
 */
function takeAnswers(task: Task, responses: Record<string, unknown>): boolean {
  const open = task.inputRequests;
  if (task.status !== 'input_required' || open === undefined) return false;
  for (const [key, request] of Object.entries(open)) {
    if (!Object.hasOwn(responses, key) || answerFor(request.method, responses, key) === undefined) continue;
    task.answers[key] = responses[key];
    delete open[key];
  }
  return Object.keys(open).length === 0;
}

/** A task this replica runs, or (with shared state) the view of one another replica runs. */
type Found = { local: Task; remote?: undefined } | { local?: undefined; remote: TaskView };

export function registerTaskMethods(server: Server, core: SidecarCore, principal: RoundPrincipal): void {
  const store = core.tasks;
  store.onRemoteUpdate = (task, responses) => {
    if (takeAnswers(task, responses)) resumeTask(core, task);
  };
  const find = async (params: { taskId: string }, ctx: ServerContext): Promise<Found> => {
    if (!declaresTasks(envelopeOf(ctx))) throw tasksRequired(ctx.mcpReq.method);
    const owner = taskOwnerOf(principal);
    const local = store.get(params.taskId, owner);
    if (local !== undefined) return { local };
    const remote = await store.shared?.load(params.taskId, owner);
    if (remote === undefined) throw new ProtocolError(-32602, `Unknown task: ${params.taskId}`);
    return { remote };
  };
  server.setRequestHandler('tasks/get', { params: TaskParams }, async (params, ctx) => {
    const found = await find(params, ctx);
    return detailed(store, found.local ?? found.remote) as never;
  });
  server.setRequestHandler('tasks/update', { params: TaskParams }, async (params, ctx) => {
    const found = await find(params, ctx);
    const responses = boundedResponses(ctx.mcpReq.inputResponses);
    if (found.local !== undefined) {
      if (takeAnswers(found.local, responses)) resumeTask(core, found.local);
    } else if (found.remote.status === 'input_required') {
      await store.shared?.update(found.remote.id, responses);
    }
    return {} as never;
  });
  server.setRequestHandler('tasks/cancel', { params: TaskParams }, async (params, ctx) => {
    const found = await find(params, ctx);
    if (found.local !== undefined) store.cancel(found.local);
    else await store.shared?.cancel(found.remote);
    return {} as never;
  });
}
