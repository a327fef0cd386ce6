// Stage 5: tools/post-execute. Listeners run in order on the result the previous one left; a
// failure stays a failure (accept({value}) is refused on it), so no listener can turn a denial
// into data.
import { deepFreeze, type ExecIdentity, type Json, type JsonObject, type Tool } from '../tool/index.js';
import { ToolFailure } from '../tool/index.js';
import { ListenerError, attempt, errorMessage, raceSignal, withTimeout } from './async.js';
import { POST_DEADLINE_GRACE_MS, type CallClock } from './clock.js';
import type { HookEntry } from './hooks.js';
import { failed, succeeded, toResult, type CallState } from './outcome.js';
import { copyContent, isContent } from './render.js';
import type { AcceptInput, DecisionTrail, PipelineLogger, PostExecuteCall, PostExecuteListener } from './types.js';

export async function runPostExecute(
  start: CallState,
  exec: Readonly<ExecIdentity>,
  tool: Tool,
  listeners: readonly HookEntry<PostExecuteListener>[],
  trail: DecisionTrail,
  meta: () => JsonObject,
  timeoutMs: number | undefined,
  log: PipelineLogger,
  clock: CallClock,
): Promise<CallState> {
  let state = start;
  for (const { id, fn } of listeners) {
    clock.at('tools/post-execute', `listener "${id}"`);
    let live = true;
    // After the listener has returned its call is settled; a late accept/block (from a timer, say)
    // is ignored and logged, not thrown where nobody could catch it.
    const late = (what: string): boolean => {
      if (live) return false;
      log.warn({ listener: id, callId: exec.callId }, `post-execute listener "${id}" called ${what} after it returned; ignored`);
      return true;
    };
    const call: PostExecuteCall = {
      exec,
      tool,
      trail,
      get result() {
        return deepFreeze(toResult({ ...state, content: copyContent(state.content) }, meta()));
      },
      get value(): Json | undefined {
        return state.ok ? state.value : undefined;
      },
      accept(input?: AcceptInput) {
        if (late('accept()')) return;
        if (input === undefined) return;
        if (Array.isArray(input)) {
          state = withContent(state, id, input);
          return;
        }
        const obj = input as Record<string, unknown>;
        const hasContent = typeof obj === 'object' && obj !== null && 'content' in obj;
        const hasValue = typeof obj === 'object' && obj !== null && 'value' in obj;
        if (hasContent && hasValue) {
          state = failed('LISTENER_ERROR', `post-execute listener "${id}": accept() takes content or a value, not both`);
        } else if (hasContent) {
          state = withContent(state, id, obj.content);
        } else if (hasValue) {
          if (!state.ok) {
            throw new ListenerError(`post-execute listener "${id}": accept({value}) is not allowed on a failed result (${state.error.code})`);
          }
          state = succeeded(tool, obj.value as Json);
        } else {
          throw new ListenerError(`post-execute listener "${id}": accept() takes content blocks, {content} or {value}`);
        }
      },
      block(feedback: string) {
        if (late('block()')) return;
        const text = typeof feedback === 'string' && feedback !== '' ? feedback : `blocked by "${id}"`;
        state = failed('BLOCKED', text);
      },
    };
    // The call's deadline bounds this stage; once it has passed (the result is already a TIMEOUT),
    // each listener still gets a short grace so redaction runs on the failure too.
    const grace = clock.expired ? AbortSignal.timeout(Math.min(POST_DEADLINE_GRACE_MS, clock.budget?.ms ?? POST_DEADLINE_GRACE_MS)) : undefined;
    const bound = grace ?? clock.deadline;
    try {
      const work = raceSignal(attempt(() => fn(call)), bound);
      await (timeoutMs === undefined
        ? work
        : withTimeout(work, timeoutMs, () => new ListenerError(`post-execute listener "${id}" did not finish within ${timeoutMs} ms`)));
    } catch (err) {
      if (bound.aborted && !(err instanceof ListenerError)) {
        // Whatever the listener had not yet finished is not shown: the call ends as a TIMEOUT.
        const reason = clock.timeoutReason;
        state = failed(
          'TIMEOUT',
          grace === undefined && reason !== undefined
            ? reason.message
            : `post-execute listener "${id}" did not finish within ${POST_DEADLINE_GRACE_MS} ms after the call's deadline had passed; it ran out in tools/post-execute (listener "${id}")`,
        );
      } else {
        state = failed('LISTENER_ERROR', err instanceof ListenerError ? err.message : `post-execute listener "${id}" threw: ${errorMessage(err)}`);
      }
    } finally {
      live = false;
    }
  }
  return state;
}

function withContent(state: CallState, id: string, content: unknown): CallState {
  if (!isContent(content)) throw new ListenerError(`post-execute listener "${id}": content must be an array of {type:'text', text} or {type:'image', data, mimeType}`);
  return { ...state, content: copyContent(content) };
}
