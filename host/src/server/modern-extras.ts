// Resources, resource templates, prompts and completions on MCP 2026-07-28 (SDK v2 Server), as
// mcp-extras.ts serves them on 2025-11-25 sessions. prompts/get runs in input rounds exactly as
// tools/call does (input-rounds.ts): a module's elicitation, or an ask, ends the round with the
// questions, and the client's retry runs the prompt again with the answers.
import { randomUUID } from 'node:crypto';
import { ProtocolError, ResourceNotFoundError, type Server, type ServerContext } from '@modelcontextprotocol/server';
import type { JsonObject } from '../tool/index.js';
import type { SidecarCore } from './core.js';
import { approvalForm } from './elicit.js';
import { boundedResponses, InputRound, type RoundPayload } from './input-rounds.js';
import { modernCallClient, requestLink } from './modern-client.js';
import {
  boundedUri,
  completeOperationFor,
  completeParams,
  listPrompts,
  listResources,
  listResourceTemplates,
  NO_COMPLETIONS,
  operationResult,
  promptOperationFor,
  promptParams,
  readOperationFor,
} from './module-surfaces.js';
import { RpcError } from './rpc-error.js';

export const MODERN_MODULE_CAPABILITIES = { prompts: {}, resources: {}, completions: {} } as const;

interface ExtrasOptions {
  core: SidecarCore;
  principal: { readonly id: string };
}

/** Our RpcError as the SDK v2's ProtocolError, so its code (not -32603) reaches the client. */
function asProtocolError(err: unknown): never {
  if (err instanceof RpcError) throw new ProtocolError(err.rpcCode, err.message);
  throw err;
}

export function serveModernModuleExtras(o: ExtrasOptions, server: Server): void {
  const { core } = o;
  server.setRequestHandler('resources/list', () => ({ resources: listResources(core) }) as never);
  server.setRequestHandler(
    'resources/templates/list',
    () => ({ resourceTemplates: listResourceTemplates(core) }) as never,
  );
  server.setRequestHandler('resources/read', (request, ctx) => {
    const uri = request.params.uri;
    let op;
    try {
      op = readOperationFor(core, boundedUri('resources/read', uri));
    } catch (err) {
      asProtocolError(err);
    }
    if (op === undefined) throw new ResourceNotFoundError(uri);
    return runRound(o, op, { uri }, ctx).catch(asProtocolError) as never;
  });
  server.setRequestHandler('prompts/list', () => ({ prompts: listPrompts(core) }) as never);
  server.setRequestHandler('prompts/get', (request, ctx) => {
    const { name, args } = promptParams(request.params);
    const op = promptOperationFor(core, name);
    if (op === undefined) throw new ProtocolError(-32602, `Unknown prompt: ${name}`);
    return runRound(o, op, args, ctx).catch(asProtocolError) as never;
  });
  server.setRequestHandler('completion/complete', (request, ctx) => {
    let parsed;
    try {
      parsed = completeParams(request.params);
    } catch (err) {
      asProtocolError(err);
    }
    const op = completeOperationFor(core, parsed.ref);
    if (op === undefined) return NO_COMPLETIONS as never;
    return runRound(o, op, parsed.args, ctx).catch(asProtocolError) as never;
  });
}

/** One round of an operation call: the answers so far go in, a result or the next questions come out. */
async function runRound(
  o: ExtrasOptions,
  op: string,
  args: JsonObject,
  ctx: ServerContext,
): Promise<Record<string, unknown>> {
  const { core, principal } = o;
  const state = ctx.mcpReq.requestState<RoundPayload>();
  const round = InputRound.resume({
    keys: core.roundKeys,
    principal,
    tool: op,
    args,
    policySet: core.policySetId(),
    state,
    responses: boundedResponses(ctx.mcpReq.inputResponses),
    method: ctx.mcpReq.method,
  });
  const callId = randomUUID();
  const link = requestLink(ctx);
  const { envelope, trace } = link;
  const unbind = core.approvals.bind(callId, {
    sessionId: undefined,
    elicit: (req, signal) =>
      round.approval(approvalForm(req, false), signal, envelope.clientCapabilities?.['elicitation'] !== undefined),
  });
  const client = modernCallClient({ link, round, logger: core.logger, callId });
  try {
    const agent = envelope.clientInfo?.name;
    const result = await core.calls.run(round.signal(ctx.mcpReq.signal), (signal) =>
      core.pipeline.call(op, args, {
        signal,
        callId,
        client,
        operation: true,
        ...(agent !== undefined ? { agent } : {}),
        ...(trace !== undefined ? { trace } : {}),
      }),
    );
    const questions = await round.questions(result.isError);
    if (questions !== undefined) return questions;
    await client.settled();
    return operationResult(result);
  } finally {
    unbind();
  }
}
