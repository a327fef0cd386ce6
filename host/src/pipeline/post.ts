// Stage 5: tools/post-execute. Listeners run in order on the result the previous one left; a
// failure stays a failure (accept({value}) is refused on it), so no listener can turn a denial
// into data.
import { deepFreeze, type ExecIdentity, type Json, type JsonObject, type Tool } from '../tool/index.js';
import { contentKinds } from '../tool/index.js';
import { ListenerError, attempt, raceSignal, withTimeout } from './async.js';
import { POST_DEADLINE_GRACE_MS, type CallClock } from './clock.js';
import type { CallContext } from './call.js';
import { failed, succeeded, toResult, type CallState } from './outcome.js';
import { copyContent, isContent } from './render.js';
import type { AcceptInput, DecisionTrail, PipelineLogger, PostExecuteCall, PostExecuteListener } from './types.js';
import { messageOf } from '../errors/index.js';

export async function runPostExecute(
  call: CallContext,
  start: CallState,
  meta: () => JsonObject,
  opts: { timeoutMs: number | undefined; log: PipelineLogger },
): Promise<CallState> {
  const { exec, tool, trail, clock } = call;
  const stage: PostStage = { exec, tool, trail, meta, timeoutMs: opts.timeoutMs, log: opts.log, clock };
  let state = start;
  for (const { id, fn } of call.hooks['tools/post-execute']) {
    clock.at('tools/post-execute', `listener "${id}"`);
    const turn: Turn = { id, state, live: true };
    await runListener(stage, turn, fn);
    state = turn.state;
  }
  return state;
}

/** What every listener of the stage is run with. */
interface PostStage {
  exec: Readonly<ExecIdentity>;
  tool: Tool;
  trail: DecisionTrail;
  meta: () => JsonObject;
  timeoutMs: number | undefined;
  log: PipelineLogger;
  clock: CallClock;
}

/** One listener's turn: the result it works on, and whether its call is still live. */
interface Turn {
  readonly id: string;
  state: CallState;
  live: boolean;
}

/** Runs one listener under the deadline (and its own timeout); a failure or overrun ends the result. */
async function runListener(stage: PostStage, turn: Turn, fn: PostExecuteListener): Promise<void> {
  const { clock, timeoutMs } = stage;
  const { id } = turn;
  const call = postExecuteCall(stage, turn);
  // The call's deadline bounds this stage; once it has passed (the result is already a TIMEOUT),
  // each listener still gets a short grace so redaction runs on the failure too.
  const grace = clock.expired
    ? AbortSignal.timeout(Math.min(POST_DEADLINE_GRACE_MS, clock.budget?.ms ?? POST_DEADLINE_GRACE_MS))
    : undefined;
  const bound = grace ?? clock.deadline;
  try {
    const work = raceSignal(
      attempt(() => fn(call)),
      bound,
    );
    await (timeoutMs === undefined
      ? work
      : withTimeout(
          work,
          timeoutMs,
          () => new ListenerError(`post-execute listener "${id}" did not finish within ${timeoutMs} ms`),
        ));
  } catch (err) {
    if (bound.aborted && !(err instanceof ListenerError)) {
      // Whatever the listener had not yet finished is not shown: the call ends as a TIMEOUT.
      const reason = clock.timeoutReason;
      turn.state = failed(
        'TIMEOUT',
        grace === undefined && reason !== undefined
          ? reason.message
          : `post-execute listener "${id}" did not finish within ${POST_DEADLINE_GRACE_MS} ms after the call's deadline had passed; it ran out in tools/post-execute (listener "${id}")`,
      );
    } else {
      turn.state = failed(
        'LISTENER_ERROR',
        err instanceof ListenerError ? err.message : `post-execute listener "${id}" threw: ${messageOf(err)}`,
      );
    }
  } finally {
    turn.live = false;
  }
}

/** What a listener is handed: the result so far, and accept/block, which change `turn.state`. */
function postExecuteCall({ exec, tool, trail, meta, log }: PostStage, turn: Turn): PostExecuteCall {
  const { id } = turn;
  // After the listener has returned its call is settled; a late accept/block (from a timer, say)
  // is ignored and logged, not thrown where nobody could catch it.
  const late = (what: string): boolean => {
    if (turn.live) return false;
    log.warn(
      { listener: id, callId: exec.callId },
      `post-execute listener "${id}" called ${what} after it returned; ignored`,
    );
    return true;
  };
  return {
    exec,
    tool,
    trail,
    get result() {
      return deepFreeze(toResult({ ...turn.state, content: copyContent(turn.state.content) }, meta()));
    },
    get value(): Json | undefined {
      return turn.state.ok ? turn.state.value : undefined;
    },
    accept(input?: AcceptInput) {
      if (late('accept()')) return;
      if (input === undefined) return;
      turn.state = accepted(turn.state, id, tool, input);
    },
    block(feedback: string) {
      if (late('block()')) return;
      const text = typeof feedback === 'string' && feedback !== '' ? feedback : `blocked by "${id}"`;
      turn.state = failed('BLOCKED', text);
    },
  };
}

/** The result after accept(input): new content, or a new value on a success (never on a failure). */
function accepted(state: CallState, id: string, tool: Tool, input: AcceptInput): CallState {
  if (Array.isArray(input)) return withContent(state, id, input);
  const obj = input as Record<string, unknown>;
  const hasContent = typeof obj === 'object' && obj !== null && 'content' in obj;
  const hasValue = typeof obj === 'object' && obj !== null && 'value' in obj;
  if (hasContent && hasValue)
    return failed('LISTENER_ERROR', `post-execute listener "${id}": accept() takes content or a value, not both`);
  if (hasContent) return withContent(state, id, obj.content);
  if (!hasValue)
    throw new ListenerError(`post-execute listener "${id}": accept() takes content blocks, {content} or {value}`);
  if (!state.ok) {
    throw new ListenerError(
      `post-execute listener "${id}": accept({value}) is not allowed on a failed result (${state.error.code})`,
    );
  }
  return succeeded(tool, obj.value as Json);
}

function withContent(state: CallState, id: string, content: unknown): CallState {
  if (!isContent(content))
    throw new ListenerError(
      `post-execute listener "${id}": content must be an array of content blocks, each of type ${contentKinds().join(', ')}`,
    );
  return { ...state, content: copyContent(content) };
}
