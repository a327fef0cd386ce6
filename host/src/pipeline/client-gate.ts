// Policy in front of what a running tool asks of its client. A tool's elicitation, sampling and roots
// requests pass the client-request guards of the call's hook snapshot first: a guard can only deny
// (like the stage-3 guards), so no policy order turns a denial into a request the client sees.
import type { CallClient, ClientAnswer, ClientRequest, ExecIdentity, Tool } from '../tool/index.js';
import type { HookEntry } from './hooks.js';
import type { ClientRequestGuard, DecisionTrail } from './types.js';
import { messageOf } from '../errors/index.js';

const NO_CLIENT: CallClient = {
  log: () => Promise.resolve(false),
  progress: () => Promise.resolve(false),
  request: (req) =>
    Promise.resolve({
      ok: false,
      code: 'UNAVAILABLE',
      message: `${req.kind} is unavailable: this call did not come from an MCP client that can answer it`,
    }),
};

/** The first guard's denial, or undefined. A guard that throws denies (fail closed). */
function denial(
  req: ClientRequest,
  exec: Readonly<ExecIdentity>,
  tool: Tool,
  guards: readonly HookEntry<ClientRequestGuard>[],
) {
  for (const { id, fn } of guards) {
    let reason: unknown;
    try {
      reason = fn(req, exec, tool);
    } catch (err) {
      return { id, reason: `client-request guard "${id}" failed: ${messageOf(err)}` };
    }
    if (reason === undefined) continue;
    return {
      id,
      reason:
        typeof reason === 'string' && reason !== '' ? reason : `client-request guard "${id}" returned a non-string`,
    };
  }
  return undefined;
}

export function policedClient(
  raw: CallClient | undefined,
  guards: readonly HookEntry<ClientRequestGuard>[],
  exec: Readonly<ExecIdentity>,
  tool: Tool,
  trail: DecisionTrail,
): CallClient {
  const link = raw ?? NO_CLIENT;
  const client: CallClient = {
    log: (level, data, logger) => link.log(level, data, logger),
    progress: (progress, total, message) => link.progress(progress, total, message),
    notify: (method, params) => link.notify?.(method, params) ?? Promise.resolve(false),
    async request(req: ClientRequest, signal: AbortSignal, timeoutMs: number): Promise<ClientAnswer> {
      const denied = denial(req, exec, tool, guards);
      const steps = (trail.clientRequests ??= []);
      if (denied !== undefined) {
        steps.push({ kind: req.kind, outcome: 'denied', by: denied.id, reason: denied.reason });
        return { ok: false, code: 'DENIED', message: `${req.kind} request denied by policy: ${denied.reason}` };
      }
      const answer = await link.request(req, signal, timeoutMs);
      steps.push(
        answer.ok
          ? { kind: req.kind, outcome: 'answered' }
          : { kind: req.kind, outcome: answer.code, reason: answer.message },
      );
      return answer;
    },
  };
  return Object.freeze(client);
}
