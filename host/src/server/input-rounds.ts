// Multi round-trip input (MCP 2026-07-28): a call that needs the client (a person's approval, a
// tool's elicitation or sampling) answers with the questions and a signed request state; the client
// answers and retries, and the call runs again from the start with every answer so far. The state
// is bound to the principal, the method, the tool, a digest of the arguments and the policy set,
// expires, and is accepted once: a tampered, foreign, replayed or expired state runs nothing
// (docs/architecture.md, "Input rounds").
import { randomUUID } from 'node:crypto';
import {
  inputRequired,
  inputResponse,
  MissingRequiredClientCapabilityError,
  type InputRequests,
} from '@modelcontextprotocol/server';
import type { ApprovalOutcome } from '../pipeline/index.js';
import { argumentSizeProblem, type ClientAnswer, type ClientRequestKind, type JsonObject } from '../tool/index.js';
import { outcomeOf, type ElicitForm } from './elicit.js';
import { RpcError } from './rpc-error.js';
import {
  type Answer,
  APPROVAL_KEY,
  digest,
  type RoundKeys,
  type RoundPrincipal,
  type RoundState,
} from './round-keys.js';

export {
  APPROVAL_KEY,
  RoundKeys,
  type RoundPayload,
  type RoundPrincipal,
  type RoundState,
} from './round-keys.js';

/** More questions than this in one round and the run stops: a tool asking in a loop gets no further. */
export const MAX_QUESTIONS_PER_ROUND = 8;
/** Rounds of one call; past this the call fails instead of asking forever. */
export const MAX_ROUNDS = 16;

interface Pending {
  key: string;
  method: string;
  params: Record<string, unknown>;
  d: string;
}

/** A run's unanswered questions, and the state the next run resumes from. */
export interface OpenQuestions {
  inputRequests: InputRequests;
  payload: RoundState;
}

export interface RoundStart {
  keys: RoundKeys;
  principal: RoundPrincipal;
  tool: string;
  args: Record<string, unknown>;
  policySet: string;
  /** The verified state (undefined on a first request); a task's own state has no `who`. */
  state: RoundState | undefined;
  responses: Record<string, unknown>;
  /** The method the state is minted for (and verified against on the retry); default tools/call. */
  method?: string;
}

/**
 * The response the client sent for `key`, when it has the shape of an answer to `method` (an
 * elicitation result, a sampling result, a roots list); anything else is no answer (asked again).
 */
export function answerFor(
  method: string,
  responses: Record<string, unknown>,
  key: string,
): Record<string, unknown> | undefined {
  const view = inputResponse(responses, key);
  const raw = responses[key] as Record<string, unknown>;
  if (view.kind === 'elicit' && method === 'elicitation/create') return raw;
  if (view.kind === 'sampling' && method === 'sampling/createMessage') return raw;
  if (view.kind === 'roots' && method === 'roots/list') return raw;
  return undefined;
}

/**
 * A request's inputResponses, held to the bounds of a call's arguments (tool/json.ts): they come
 * from the client as arguments do and are handed to the tool, signed into the state and stored
 * with a task, and an answer nested thousands deep overflowed the stack on the way.
 */
export function boundedResponses(responses: Record<string, unknown> | undefined): Record<string, unknown> {
  const all = responses ?? {};
  const problem = argumentSizeProblem(all);
  if (problem !== undefined) throw new RpcError(-32602, `inputResponses: ${problem.replace(/^arguments: /, '')}`);
  return all;
}

/** A question's own key (the tool may name it with `inputKey`), else q0, q1, ... in asking order. */
const KEY_RE = /^[A-Za-z0-9_.-]{1,64}$/;

/** One round of one call: what is already answered, and what this run still has to ask. */
export class InputRound {
  readonly #start: RoundStart;
  readonly #argsDigest: string;
  /** Answers from earlier rounds (signed, in the state), by key, with the digest of their question. */
  readonly #answers: Map<string, Answer>;
  readonly #pending: Pending[] = [];
  readonly #abort = new AbortController();
  #approved: boolean;
  #declined: 'decline' | 'cancel' | undefined;
  #missing: Record<string, object> | undefined;
  #asked = 0;

  private constructor(start: RoundStart, argsDigest: string, answers: Map<string, Answer>, approved: boolean) {
    this.#start = start;
    this.#argsDigest = argsDigest;
    this.#answers = answers;
    this.#approved = approved;
  }

  /** Checks a retried request's state against the call it claims to continue; throws -32602 if it is another's. */
  static resume(start: RoundStart): InputRound {
    const argsDigest = digest(start.args);
    const { state } = start;
    if (state === undefined) return new InputRound(start, argsDigest, new Map(), false);
    if (state.tool !== start.tool)
      throw new RpcError(-32602, `requestState belongs to a call of another tool ("${state.tool}")`);
    if (state.args !== argsDigest) throw new RpcError(-32602, 'requestState belongs to a call with other arguments');
    if (state.set !== start.policySet)
      throw new RpcError(-32602, 'requestState was made under another policy set; call again without it');
    if (state.round >= MAX_ROUNDS)
      throw new RpcError(
        -32602,
        `this call has asked ${MAX_ROUNDS} rounds of questions; call again without requestState`,
      );
    const round = new InputRound(start, argsDigest, new Map(Object.entries(state.answers)), state.approved === true);
    // The approval is the host's own question: only an answer to a state that asked it counts.
    if (state.asked[APPROVAL_KEY] !== undefined) {
      const answer = answerFor('elicitation/create', start.responses, APPROVAL_KEY);
      const action = answer?.['action'];
      if (action === 'accept') round.#approved = true;
      else if (action === 'decline' || action === 'cancel') round.#declined = action;
    }
    return round;
  }

  /** The call's signal: the client's, and this round's own stop (a question that must go out first). */
  signal(request: AbortSignal): AbortSignal {
    return AbortSignal.any([request, this.#abort.signal]);
  }

  /** An `ask` routed to the client: answered in an earlier round, or asked now (the run stops here). */
  approval(form: ElicitForm, signal: AbortSignal, clientCanElicit: boolean): Promise<ApprovalOutcome> {
    if (this.#approved) return Promise.resolve('allowed-once');
    if (this.#declined !== undefined) return Promise.resolve(outcomeOf(this.#declined));
    if (!clientCanElicit) return Promise.resolve('unavailable');
    this.#pending.push({
      key: APPROVAL_KEY,
      method: 'elicitation/create',
      params: { mode: 'form', ...form },
      d: digest(form),
    });
    return this.#stopHere(signal);
  }

  /**
   * A tool's question: answered by this request's inputResponses or an earlier round's, when the
   * answer has the right shape (a tool's answers come from the client as its arguments do, so no
   * state is needed for them); else it joins this round's questions and the tool hears PENDING and
   * goes on, so several questions can go out in one round.
   */
  request(method: string, params: Record<string, unknown>, inputKey: string | undefined): Promise<ClientAnswer> {
    const ordinal = this.#asked++;
    const key = inputKey !== undefined && KEY_RE.test(inputKey) && inputKey !== APPROVAL_KEY ? inputKey : `q${ordinal}`;
    const d = digest({ method, params });
    const now = answerFor(method, this.#start.responses, key);
    if (now !== undefined) {
      this.#answers.set(key, { d, r: now });
      return Promise.resolve({ ok: true, result: now as JsonObject });
    }
    const earlier = this.#answers.get(key);
    if (earlier !== undefined && earlier.d === d) return Promise.resolve({ ok: true, result: earlier.r as JsonObject });
    this.#answers.delete(key);
    if (!this.#pending.some((p) => p.key === key)) this.#pending.push({ key, method, params, d });
    if (this.#pending.length > MAX_QUESTIONS_PER_ROUND)
      this.#abort.abort(new Error(`more than ${MAX_QUESTIONS_PER_ROUND} questions in one round`));
    return Promise.resolve({
      ok: false,
      code: 'PENDING',
      message: `${method}: asked the client; the call runs again with the answer`,
    });
  }

  /**
   * The tool asked for something the client did not declare: the tool hears UNAVAILABLE (it may
   * ask another way); if it ends failing with nothing else to ask, the request fails -32021
   * naming the capability (questions()).
   */
  missingCapability(capability: ClientRequestKind): ClientAnswer {
    this.#missing = { ...this.#missing, [capability]: {} };
    return { ok: false, code: 'UNAVAILABLE', message: `the client did not declare the ${capability} capability` };
  }

  #stopHere(signal: AbortSignal): Promise<never> {
    this.#abort.abort(new Error('input required from the client'));
    return new Promise((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  }

  /**
   * What this run left to ask: the questions and the state a later run resumes from (unsigned:
   * a task keeps it in server memory, tasks.ts); a -32021 error when it failed for a capability
   * the client lacks; else undefined (the result stands).
   */
  open(failed: boolean): OpenQuestions | undefined {
    if (this.#pending.length === 0 && failed && this.#missing !== undefined) {
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: this.#missing },
        `the tool needs the client's ${Object.keys(this.#missing).join(', ')} capability, which the request did not declare`,
      );
    }
    if (this.#pending.length === 0) return undefined;
    const asked = this.#pending.slice(0, MAX_QUESTIONS_PER_ROUND);
    const { state } = this.#start;
    const payload: RoundState = {
      v: 1,
      tool: this.#start.tool,
      args: this.#argsDigest,
      set: this.#start.policySet,
      n: randomUUID(),
      round: (state?.round ?? 0) + 1,
      asked: Object.fromEntries(asked.map((p) => [p.key, p.d])),
      answers: Object.fromEntries(this.#answers),
      ...(this.#approved ? { approved: true } : {}),
    };
    const inputRequests: InputRequests = {};
    for (const p of asked) inputRequests[p.key] = { method: p.method, params: p.params } as InputRequests[string];
    return { inputRequests, payload };
  }

  /** The input-required result (with a signed request state) when this run left questions; see open(). */
  async questions(failed: boolean): Promise<Record<string, unknown> | undefined> {
    const open = this.open(failed);
    return open === undefined ? undefined : this.inputRequired(open);
  }

  /** The questions as an InputRequiredResult, with the state signed for this principal. */
  async inputRequired(open: OpenQuestions): Promise<Record<string, unknown>> {
    const requestState = await this.#start.keys.mint(
      open.payload,
      this.#start.principal,
      this.#start.method ?? 'tools/call',
    );
    return inputRequired({ inputRequests: open.inputRequests, requestState }) as unknown as Record<string, unknown>;
  }
}
