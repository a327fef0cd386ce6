// `toolgate serve`'s help and flags: what the command line may say, checked before anything starts.
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONCURRENT,
  DEFAULT_TASK_LIMITS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_MS,
  defaultSessionsPerAddress,
  isLoopback,
  parseBindAddress,
  type BindAddress,
} from '../../server/index.js';
import { logChoice, type LogChoice } from '../logging.js';
import { POLICY_FLAGS, policyFlagsHelp, policyChoice, type PolicyChoice } from '../policy-source.js';
import { manifestsHelp } from '../tool-lookup.js';
import { LOG_FLAGS, logFlagsHelp, parseFlags, UsageError } from '../usage.js';
import type { HttpFlags } from './serve-transport.js';
import { messageOf } from '../../errors/index.js';
import { parseStateUrl, type StateUrl } from '../../shared-state/index.js';
import { tracingChoice, type TracingChoice } from '../../telemetry/index.js';

export const SERVE_HELP = `Usage: toolgate serve [--stdio | --http [HOST:]PORT] [--manifests PATH]... [--policies DIR|none]
                     [--policy-set NAME] [--builtin-tools] [--token TOKEN]
                     [--allowed-host NAME]... [--allow-origin ORIGIN]... [--task-ttl MS]
                     [--max-tasks N] [--max-task-bytes BYTES] [--state URL] [--otel [--otel-record-content]]
                     [-v|-q]

Serves the tools to agents: MCP over stdio (the default) or over Streamable HTTP at /mcp, and
on the same HTTP port a plain API (GET /v1/tools, POST /v1/tools/NAME/call, GET /v1/approvals,
POST /v1/approvals/ID, GET /metrics, GET /healthz) and a page for the person who answers
approvals at /ui (sign in with the approver credential). The approval routes need the approver
credential as a bearer token: --token when set, else a random approval secret made at each start,
written 0600 to $TOOLGATE_HOME/approval-secret and shown on the terminal. Manifest folders are watched: adding,
changing or removing a manifest updates the tool list and notifies clients (tools/list_changed).
Without --manifests the installed store is served and watched too, so a tool installed or
uninstalled with 'toolgate install' / 'uninstall' appears or goes while serving. Agents see
only those tools; the built-in echo (a 'toolgate call echo' smoke test) only with --builtin-tools.
The policy set in force, and where it came from, is printed on stderr at start.

Options:
  --stdio                 MCP over stdin/stdout (stdout carries only JSON-RPC; logs go to stderr)
  --http [HOST:]PORT      listen on HOST:PORT, or a bare PORT on 127.0.0.1 (port 0 = any free port;
                          the address is printed on stderr). Anything other than loopback needs a
                          token.
${manifestsHelp(26)}
${policyFlagsHelp(26)}
  --builtin-tools         also serve the built-in echo tool
  --token TOKEN           bearer token every HTTP request must carry (default $TOOLGATE_TOKEN)
  --allowed-host NAME     a name the Host header may carry (repeatable; default: loopback names)
  --allow-origin ORIGIN   a browser origin allowed to call (repeatable; default: none)
  --max-body BYTES        request body cap, answered 413 above it (default ${DEFAULT_MAX_BODY_BYTES})
  --max-concurrent N      open requests per client (the remote address, or an MCP session it
                          opened), answered 429 above it (default ${DEFAULT_MAX_CONCURRENT})
  --max-sessions N        HTTP MCP sessions at once; at the cap the least recently used idle one
                          is closed for a new client (default ${DEFAULT_MAX_SESSIONS})
  --max-sessions-per-address N  HTTP MCP sessions one remote address may hold; past it its own
                          least recently used idle one is closed, or 429 when all are busy
                          (default half of --max-sessions, rounded up)
  --session-idle-timeout MS  an HTTP MCP session with no request for this long is closed, with
                          its open GET stream (a stream is no activity) (default ${DEFAULT_SESSION_IDLE_MS})
  --task-ttl MS           an MCP task (Tasks extension) is kept this long after it ends or last
                          asked for input (default 600000)
  --max-tasks N           MCP tasks one client (its bearer token; without one, its address; on
                          stdio, its connection) may hold, finished ones included until they
                          expire; past it a new task is refused (default 64)
  --max-task-bytes BYTES  the results one client's tasks may keep in all; a result past it fails
                          its task (default 8388608)
  --shutdown-timeout MS   on SIGTERM/SIGINT, how long running calls may finish; the process exits
                          within about a second after it (default 10000)
  --no-watch              do not watch the manifest folders, the store and the policy set
  --mrtr-key-file FILE    the key (32 bytes or more) that signs MCP 2026-07-28 input-round states;
                          replicas behind one load balancer share it so a round that starts on one
                          finishes on another (default $TOOLGATE_MRTR_KEY_FILE, else a random key
                          of this process)
  --state redis://HOST:PORT[/DB]  shared state for replicas behind one load balancer: the
                          approval queue, answered approvals, rate-limit buckets, MCP tasks and used
                          input-round states live in that Redis, so any replica lists and answers any
                          ask, a limit holds across all of them and a task is reachable from each
                          (default $TOOLGATE_STATE, else all in this process's memory). A malformed
                          or unreachable URL at start exits 2; while Redis is down calls that need
                          it are refused (an ask is denied), and serving goes on when it is back
  --otel                  export OpenTelemetry traces over OTLP/HTTP (JSON) to
                          $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else $OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces
                          (default http://localhost:4318); also on when either variable is set, off
                          with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none. Headers from
                          $OTEL_EXPORTER_OTLP_HEADERS, the service name from $OTEL_SERVICE_NAME
                          (default toolgate). See docs/observability.md
  --otel-record-content   also put each call's arguments and result on its span, redacted as the
                          audit log is (default: never; also $OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true)
${logFlagsHelp(26)}
  -h, --help              show this help

Wrong credentials (bearer token, approval secret, /ui sign-in) are limited per address: after 10
in a minute that address gets 429 with Retry-After until the minute ends, credential unchecked.

Exit status: 0 after a clean shutdown, 2 usage or configuration error.`;

export interface ServeFlags extends HttpFlags {
  http: BindAddress | undefined;
  manifests: string[];
  policy: PolicyChoice;
  builtinTools: boolean;
  shutdownMs: number;
  watch: boolean;
  log: LogChoice;
  /** MCP tasks: keep time, and what one client may hold (docs/mcp.md, "Tasks"). */
  taskTtlMs: number;
  maxTasks: number;
  maxTaskBytes: number;
  /** Internal (tests): how often a call waiting for a person sends progress; $TOOLGATE_ASK_PROGRESS_MS. */
  askProgressMs: number | undefined;
  /** The input-round signing key's file (--mrtr-key-file, $TOOLGATE_MRTR_KEY_FILE). */
  mrtrKeyFile: string | undefined;
  /** The replicas' shared state (--state, $TOOLGATE_STATE); undefined keeps everything in memory. */
  state: StateUrl | undefined;
  /** OpenTelemetry traces: off, or on and how (--otel, the OTEL_* variables; docs/observability.md). */
  tracing: TracingChoice;
}

function positiveInt(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${flag}: must be a positive integer, got "${text}"`);
  return n;
}

/**
 * Knobs only the test suite turns (a test cannot wait a minute or fifteen seconds): environment
 * variables, not flags, so no one tunes a limit away by accident. The failed-credential window
 * and how often a call waiting for a person sends progress.
 */
function testKnobs(env: NodeJS.ProcessEnv): { credentialWindowMs?: number; askProgressMs: number | undefined } {
  const window = env.TOOLGATE_TEST_CREDENTIAL_WINDOW_MS;
  const progress = env.TOOLGATE_ASK_PROGRESS_MS;
  return {
    ...(window === undefined
      ? {}
      : { credentialWindowMs: positiveInt('TOOLGATE_TEST_CREDENTIAL_WINDOW_MS', window, 60_000) }),
    askProgressMs: progress === undefined ? undefined : positiveInt('TOOLGATE_ASK_PROGRESS_MS', progress, 0),
  };
}

const OTEL_FLAGS = {
  otel: { type: 'boolean', default: false },
  'otel-record-content': { type: 'boolean', default: false },
} as const;

/** --otel and the OTEL_* variables; a contradiction or an exporter toolgate lacks is a usage error. */
function tracingFlags(v: Record<string, unknown>, env: NodeJS.ProcessEnv): Pick<ServeFlags, 'tracing'> {
  const choice = tracingChoice({ otel: v['otel'] === true, recordContent: v['otel-record-content'] === true }, env);
  if (typeof choice === 'string') throw new UsageError(choice);
  return { tracing: choice };
}

const TASK_FLAGS = {
  'task-ttl': { type: 'string' },
  'max-tasks': { type: 'string' },
  'max-task-bytes': { type: 'string' },
} as const;

/** The MCP task bounds (docs/mcp.md, "Tasks"). */
function taskFlags(v: Record<string, unknown>): Pick<ServeFlags, 'taskTtlMs' | 'maxTasks' | 'maxTaskBytes'> {
  const text = (key: string): string | undefined => (typeof v[key] === 'string' ? v[key] : undefined);
  return {
    taskTtlMs: positiveInt('--task-ttl', text('task-ttl'), DEFAULT_TASK_LIMITS.ttlMs),
    maxTasks: positiveInt('--max-tasks', text('max-tasks'), DEFAULT_TASK_LIMITS.maxPerPrincipal),
    maxTaskBytes: positiveInt('--max-task-bytes', text('max-task-bytes'), DEFAULT_TASK_LIMITS.maxResultBytes),
  };
}

const SERVE_FLAGS = {
  stdio: { type: 'boolean', default: false },
  http: { type: 'string' },
  manifests: { type: 'string', multiple: true },
  ...POLICY_FLAGS,
  'builtin-tools': { type: 'boolean', default: false },
  token: { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  'allow-origin': { type: 'string', multiple: true },
  'max-body': { type: 'string' },
  'max-concurrent': { type: 'string' },
  'shutdown-timeout': { type: 'string' },
  'max-sessions': { type: 'string' },
  'max-sessions-per-address': { type: 'string' },
  'session-idle-timeout': { type: 'string' },
  ...TASK_FLAGS,
  ...OTEL_FLAGS,
  'no-watch': { type: 'boolean', default: false },
  'mrtr-key-file': { type: 'string' },
  state: { type: 'string' },
  ...LOG_FLAGS,
} as const;

/** --state, else $TOOLGATE_STATE: the replicas' shared state, checked here and reached at start. */
function stateFlag(text: string | undefined, env: NodeJS.ProcessEnv): StateUrl | undefined {
  const given = text ?? (env.TOOLGATE_STATE === '' ? undefined : env.TOOLGATE_STATE);
  if (given === undefined) return undefined;
  try {
    return parseStateUrl(given);
  } catch (err) {
    throw new UsageError(messageOf(err));
  }
}

export function parseServeFlags(argv: string[], env: NodeJS.ProcessEnv): ServeFlags {
  const parsed = parseFlags(argv, SERVE_FLAGS, { min: 0, max: 0 });
  const v = parsed.values;
  if (v.stdio === true && v.http !== undefined) throw new UsageError('give either --stdio or --http, not both');
  let http: BindAddress | undefined;
  if (v.http !== undefined) {
    try {
      // A bare port is loopback: the safe default, as `--http 8787` reads.
      http = parseBindAddress(/^\d+$/.test(v.http) ? `127.0.0.1:${v.http}` : v.http);
    } catch (err) {
      throw new UsageError(messageOf(err), { showUsage: true });
    }
  }
  const token = v.token ?? env.TOOLGATE_TOKEN;
  if (http !== undefined && !isLoopback(http.host) && (token === undefined || token === '')) {
    throw new UsageError(
      `--http ${v.http ?? ''}: refusing to listen off loopback without a bearer token; set --token or TOOLGATE_TOKEN`,
    );
  }
  const maxSessions = positiveInt('--max-sessions', v['max-sessions'], DEFAULT_MAX_SESSIONS);
  return {
    http,
    manifests: v.manifests ?? [],
    policy: policyChoice(v),
    builtinTools: v['builtin-tools'] === true,
    token: token === '' ? undefined : token,
    allowedHosts: v['allowed-host'] ?? [],
    allowOrigins: v['allow-origin'] ?? [],
    maxBody: positiveInt('--max-body', v['max-body'], DEFAULT_MAX_BODY_BYTES),
    maxConcurrent: positiveInt('--max-concurrent', v['max-concurrent'], DEFAULT_MAX_CONCURRENT),
    maxSessions,
    maxSessionsPerAddress: positiveInt(
      '--max-sessions-per-address',
      v['max-sessions-per-address'],
      defaultSessionsPerAddress(maxSessions),
    ),
    sessionIdleMs: positiveInt('--session-idle-timeout', v['session-idle-timeout'], DEFAULT_SESSION_IDLE_MS),
    ...testKnobs(env),
    ...taskFlags(v),
    ...tracingFlags(v, env),
    shutdownMs: positiveInt('--shutdown-timeout', v['shutdown-timeout'], 10_000),
    watch: v['no-watch'] !== true,
    log: logChoice(v),
    mrtrKeyFile: v['mrtr-key-file'] ?? (env.TOOLGATE_MRTR_KEY_FILE === '' ? undefined : env.TOOLGATE_MRTR_KEY_FILE),
    state: stateFlag(v.state, env),
  };
}
