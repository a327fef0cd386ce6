// One run of a 2026-07-28 tools/call through the pipeline, as a request answers it (modern-server.ts)
// and as a task runs it in the background (tasks.ts): the answers so far go in, a result or the
// questions the run left open come out (input-rounds.ts). Protocol failures throw (RpcError, the
// SDK's -32021), so the caller decides whether they become a JSON-RPC error or a failed task.
import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { ServerClosingError } from './call-tracker.js';
import type { SidecarCore } from './core.js';
import { approvalForm } from './elicit.js';
import { InputRound, type OpenQuestions, type RoundPrincipal, type RoundState } from './input-rounds.js';
import { toCallToolResult } from './mcp-result.js';
import { modernCallClient, type ModernLink } from './modern-client.js';
import { RpcError } from './rpc-error.js';

export interface RunSpec {
  core: SidecarCore;
  principal: RoundPrincipal;
  name: string;
  args: Record<string, unknown>;
  link: ModernLink;
  /** The state this run resumes (a verified request state, or a task's own). */
  state: RoundState | undefined;
  responses: Record<string, unknown>;
  signal: AbortSignal;
}

export type RunEnd =
  /** `errorCode`: the pipeline's code when the call failed (TIMEOUT, INVALID_OUTPUT, ...). */
  | { kind: 'result'; result: Record<string, unknown>; errorCode?: string }
  /** The run left questions; `round` can turn them into an input-required result. */
  | { kind: 'questions'; open: OpenQuestions; round: InputRound };

export async function runCall(s: RunSpec): Promise<RunEnd> {
  const { core, name, args, link } = s;
  const tool = core.tools.get(name);
  if (tool === undefined) throw new RpcError(-32602, `Unknown tool: ${name}`);
  const round = InputRound.resume({
    keys: core.roundKeys,
    principal: s.principal,
    tool: name,
    args,
    policySet: core.policySetId(),
    state: s.state,
    responses: s.responses,
  });
  const callId = randomUUID();
  const sensitive = tool.definition.sensitiveArguments === true;
  const canElicit = link.envelope.clientCapabilities?.['elicitation'] !== undefined;
  const unbind = core.approvals.bind(callId, {
    sessionId: undefined,
    elicit: (req, signal) => round.approval(approvalForm(req, sensitive), signal, canElicit),
  });
  const client = modernCallClient({ link, round, logger: core.logger, callId });
  try {
    const agent = link.envelope.clientInfo?.name;
    const result = await core.calls.run(round.signal(s.signal), (signal) =>
      core.pipeline.call(name, args, {
        signal,
        callId,
        client,
        ...(agent !== undefined ? { agent } : {}),
        ...(link.trace !== undefined ? { trace: link.trace } : {}),
      }),
    );
    const open = round.open(result.isError);
    if (open !== undefined) return { kind: 'questions', open, round };
    if (result.error?.code === 'UNKNOWN_TOOL') throw new RpcError(-32602, `Unknown tool: ${name}`);
    await client.settled();
    const mcp = { ...(toCallToolResult(result, callId) as CallToolResult) };
    return { kind: 'result', result: mcp, ...(result.error !== undefined ? { errorCode: result.error.code } : {}) };
  } catch (err) {
    if (err instanceof ServerClosingError) throw new RpcError(-32000, err.message);
    throw err;
  } finally {
    unbind();
  }
}
