// `toolgate serve`: the sidecar. MCP over stdio (default) or Streamable HTTP, plus the plain HTTP
// API, over one runtime whose manifest folders are watched while serving.
import { Readable } from 'node:stream';
import type { ApprovalService } from '../../pipeline/index.js';
import type { Runtime } from '../runtime.js';
import {
  DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, isLoopback, reserveStdout, ManifestTools, newApprovalSecret, parseBindAddress, removeApprovalSecret,
  serveHttp, serveStdio, writeApprovalSecret,
  SessionApprovals, SidecarCore, sinkWritable, type HttpMount, type PendingApprovals, type BindAddress, type ChangeSource, type MetricsSource,
} from '../../server/index.js';
import { EXIT, type CliIO, type Command, type ExitCode } from '../command.js';
import { toolgateVersion } from '../package-root.js';
import { describePolicySource, POLICY_FLAGS, policyFlagsHelp, policyChoice, type PolicyChoice } from '../policy-source.js';
import { logChoice, type LogChoice } from '../logging.js';
import { manifestsHelp } from '../tool-lookup.js';
import { LOG_FLAGS, logFlagsHelp, parseFlags, UsageError } from '../usage.js';

const HELP = `Usage: toolgate serve [--stdio | --http [HOST:]PORT] [--manifests PATH]... [--policies DIR|none]
                     [--policy-set NAME] [--builtin-tools] [--token TOKEN]
                     [--allowed-host NAME]... [--allow-origin ORIGIN]... [-v|-q]

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
  --max-concurrent N      open requests per client, answered 429 above it (default ${DEFAULT_MAX_CONCURRENT})
  --max-sessions N        HTTP MCP sessions at once; at the cap the least recently used idle one
                          is closed for a new client (default ${DEFAULT_MAX_SESSIONS})
  --session-idle-timeout MS  an HTTP MCP session with no request for this long is closed
                          (default ${DEFAULT_SESSION_IDLE_MS})
  --shutdown-timeout MS   on SIGTERM/SIGINT, how long running calls may finish; the process exits
                          within about a second after it (default 10000)
  --no-watch              do not watch the manifest folders, the store and the policy set
${logFlagsHelp(26)}
  -h, --help              show this help

Exit status: 0 after a clean shutdown, 2 usage or configuration error.`;

interface ServeFlags {
  http: BindAddress | undefined;
  manifests: string[];
  policy: PolicyChoice;
  builtinTools: boolean;
  token: string | undefined;
  allowedHosts: string[];
  allowOrigins: string[];
  maxBody: number;
  maxConcurrent: number;
  maxSessions: number;
  sessionIdleMs: number;
  shutdownMs: number;
  watch: boolean;
  log: LogChoice;
}

function positiveInt(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${flag}: must be a positive integer, got "${text}"`);
  return n;
}

function parse(argv: string[], env: NodeJS.ProcessEnv): ServeFlags {
  const parsed = parseFlags(
    argv,
    {
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
      'session-idle-timeout': { type: 'string' },
      'no-watch': { type: 'boolean', default: false },
      ...LOG_FLAGS,
    },
    { min: 0, max: 0 },
  );
  const v = parsed.values;
  if (v.stdio === true && v.http !== undefined) throw new UsageError('give either --stdio or --http, not both');
  let http: BindAddress | undefined;
  if (v.http !== undefined) {
    try {
      // A bare port is loopback: the safe default, as `--http 8787` reads.
      http = parseBindAddress(/^\d+$/.test(v.http) ? `127.0.0.1:${v.http}` : v.http);
    } catch (err) {
      throw new UsageError(err instanceof Error ? err.message : String(err), { showUsage: true });
    }
  }
  const token = v.token ?? env.TOOLGATE_TOKEN;
  if (http !== undefined && !isLoopback(http.host) && (token === undefined || token === '')) {
    throw new UsageError(`--http ${v.http ?? ''}: refusing to listen off loopback without a bearer token; set --token or TOOLGATE_TOKEN`);
  }
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
    maxSessions: positiveInt('--max-sessions', v['max-sessions'], DEFAULT_MAX_SESSIONS),
    sessionIdleMs: positiveInt('--session-idle-timeout', v['session-idle-timeout'], DEFAULT_SESSION_IDLE_MS),
    shutdownMs: positiveInt('--shutdown-timeout', v['shutdown-timeout'], 10_000),
    watch: v['no-watch'] !== true,
    log: logChoice(v),
  };
}

/** What the policy engine offers the server (see policyLink). */
interface PolicyLink {
  fallback: ApprovalService;
  metrics: MetricsSource | undefined;
  queue: PendingApprovals;
  changes: ChangeSource;
}

/**
 * The runtime's policy services: their approval router (per-call elicitation is registered there
 * so it comes before the configured channels), their queue for /v1/approvals, their reload events
 * for list_changed, and their metrics when a policy set is mounted (else the server's own).
 */
function policyLink(runtime: Runtime, approvals: SessionApprovals): PolicyLink {
  const services = runtime.policyServices;
  const router = services.approvals;
  approvals.router = router;
  // A mounted policy set puts the router in front of us (and us behind it as its base); asking it
  // again from here would ask its channels twice.
  const mounted = () => runtime.pipeline.approval === router;
  return {
    fallback: { request: (req, signal) => (mounted() ? Promise.resolve('unavailable') : router.request(req, signal)) },
    metrics: mounted() ? { render: () => services.metrics.renderMetrics() } : undefined,
    queue: services.queue,
    changes: (fn) => services.events.on('changed', () => fn()),
  };
}

/** Resolves on SIGTERM, on the CLI's interrupt (SIGINT) or when `also` resolves. */
function stopRequested(io: CliIO, also: Promise<unknown>): { reason: Promise<string>; dispose(): void } {
  let onTerm: () => void = () => {};
  let onAbort: () => void = () => {};
  const reason = new Promise<string>((resolve) => {
    onTerm = () => resolve('SIGTERM');
    onAbort = () => resolve('SIGINT');
    process.once('SIGTERM', onTerm);
    if (io.signal?.aborted === true) resolve('SIGINT');
    io.signal?.addEventListener('abort', onAbort, { once: true });
    void also.then(() => resolve('stdin closed'));
  });
  return {
    reason,
    dispose() {
      process.off('SIGTERM', onTerm);
      io.signal?.removeEventListener('abort', onAbort);
    },
  };
}

/**
 * The secret goes to the terminal only when stderr is one: stderr that is not a terminal is
 * usually a log file, and the file (0600) is where programs read it from.
 */
function approvalSecretNotice(io: CliIO, secret: string, file: string): string {
  const stderrIsTTY = io.stderrIsTTY ?? process.stderr.isTTY === true;
  const shown = stderrIsTTY ? `approval secret ${secret} (also in ${file})` : `approval secret in ${file}`;
  return `toolgate serve: approvals need Authorization: Bearer <secret>; ${shown}\n`;
}

/** The /ui page (loaded only for --http). */
async function pageMount(runtime: Runtime, core: SidecarCore, manifests: ManifestTools): Promise<HttpMount> {
  const [{ uiMount }, { uiSources }] = await Promise.all([import('../../ui/index.js'), import('../ui-sources.js')]);
  return uiMount(await uiSources(runtime, core, manifests));
}

/** What shutdown may take after the running calls are answered or cancelled. */
const TEARDOWN_MS = 400;

export const serveCommand: Command = {
  path: ['serve'],
  summary: 'serve the tools over MCP (stdio or HTTP) and a plain HTTP API',
  help: HELP,
  async run(argv: string[], io: CliIO): Promise<ExitCode> {
    const flags = parse(argv, io.env);
    // Before anything loads policy modules or tools: from here on only JSON-RPC reaches stdout.
    const stdout = flags.http === undefined && io.processStdio === true ? reserveStdout() : undefined;
    try {
      return await serve(flags, io, stdout?.write ?? io.stdout);
    } finally {
      stdout?.release();
    }
  },
};

async function serve(flags: ServeFlags, io: CliIO, writeStdout: (text: string) => void): Promise<ExitCode> {
  const since = (t: number) => Math.round(performance.now() - t);
  const t0 = performance.now();
  const approvals = new SessionApprovals();
  const { createRuntime } = await import('../runtime.js');
  const runtime = await createRuntime({
    io,
    manifests: flags.manifests,
    ...flags.policy,
    builtinTools: flags.builtinTools,
    approval: approvals,
    watchPolicies: flags.watch,
    log: flags.log,
    // Loaded below through ManifestTools, which can also reload and unregister them.
    loadManifests: false,
  });
  const log = runtime.logger;
  // One line at start: which set guards this server, and where it came from.
  io.stderr(`toolgate serve: ${describePolicySource(runtime.policySource)}\n`);
  log.debug({ ms: since(t0), sinceProcessStart: Math.round(performance.now()) }, 'runtime ready');
  const link = policyLink(runtime, approvals);
  approvals.fallback = link.fallback;
  // Without --manifests the installed store is served too, re-resolved on every sync and watched,
  // so `toolgate install` / `uninstall` show up in a running server.
  const { installedSource } = await import('../manifest-loader.js');
  const store = flags.manifests.length > 0 ? undefined : installedSource(runtime.storeDir, log);
  // Modules compile in the background once the first tools/list is answered (or after 1 s):
  // the client's first answer does not wait behind twenty compiles.
  let listed: () => void = () => {};
  const firstListed = new Promise<void>((resolve) => {
    listed = resolve;
    setTimeout(resolve, 1000).unref();
  });
  const manifests = new ManifestTools({
    dirs: runtime.manifestDirs,
    backgroundAfter: firstListed,
    ...(store !== undefined ? { moreDirs: () => store.dirs(), watchAlso: store.watch } : {}),
    ctx: runtime.host.root,
    logger: log,
    compile: 'background',
  });
  // Watching starts before the first sync, so a file written during it is not missed.
  if (flags.watch) manifests.watch();
  try {
    await manifests.sync();
  } catch (err) {
    await manifests.close();
    await runtime.dispose();
    throw err;
  }
  let core: SidecarCore | undefined;
  let closeTransport: () => Promise<void> = async () => {};
  let stopAccepting: () => void = () => {};
  let stdinClosed: Promise<unknown> = new Promise(() => {});
  try {
    core = new SidecarCore({
      runtime,
      approvals,
      version: toolgateVersion(),
      ...(link.metrics !== undefined ? { metrics: link.metrics } : {}),
      approvalQueue: link.queue,
      policyChanges: link.changes,
      onToolsListed: () => listed(),
    });
    if (flags.http !== undefined) {
      // Without a token, approvals need a per-start secret that only the operator can read.
      const secret = flags.token === undefined ? newApprovalSecret() : undefined;
      const secretFile = secret === undefined ? undefined : await writeApprovalSecret(runtime.storeDir, secret);
      const http = await serveHttp(core, {
        mounts: [await pageMount(runtime, core, manifests)],
        bind: flags.http,
        ...(flags.token !== undefined ? { token: flags.token } : {}),
        ...(secret !== undefined ? { approvalSecret: secret } : {}),
        allowedHosts: flags.allowedHosts,
        allowedOrigins: flags.allowOrigins,
        maxBodyBytes: flags.maxBody,
        maxConcurrentPerClient: flags.maxConcurrent,
        maxSessions: flags.maxSessions,
        sessionIdleMs: flags.sessionIdleMs,
      });
      io.stderr(`toolgate serve: listening on ${http.url}/mcp (API at ${http.url}/v1, approvals page at ${http.url}/ui)\n`);
      if (secret !== undefined && secretFile !== undefined) io.stderr(approvalSecretNotice(io, secret, secretFile));
      closeTransport = async () => {
        await http.close();
        if (secret !== undefined && secretFile !== undefined) await removeApprovalSecret(secretFile, secret);
      };
      stopAccepting = () => http.stopAccepting();
    } else {
      const stdin = io.stdin instanceof Readable ? io.stdin : new Readable().wrap(io.stdin);
      const session = await serveStdio(core, stdin, sinkWritable(writeStdout));
      stdinClosed = session.closed;
      closeTransport = () => session.close();
    }
  } catch (err) {
    core?.close();
    await manifests.close();
    await runtime.dispose();
    if (err instanceof Error && 'code' in err && (err.code === 'EADDRINUSE' || err.code === 'EACCES' || err.code === 'EADDRNOTAVAIL')) {
      throw new UsageError(`--http: cannot listen: ${err.message}`);
    }
    throw err;
  }

  log.debug({ ms: since(t0), sinceProcessStart: Math.round(performance.now()), tools: runtime.tools.list().length }, 'serving');
  const stop = stopRequested(io, stdinClosed);
  const why = await stop.reason;
  stop.dispose();
  log.info({ reason: why }, 'shutting down');
  stopAccepting();
  const aborted = await core.calls.drain(flags.shutdownMs);
  if (aborted > 0) io.stderr(`toolgate serve: ${aborted} call(s) still running after ${flags.shutdownMs} ms were cancelled\n`);
  // The answers are written; the rest of the teardown gets what is left of a second, so the
  // process exits within the shutdown timeout plus about one second whatever hangs.
  const teardown = (async () => {
    await closeTransport();
    core.close();
    await manifests.close();
    await runtime.dispose();
  })();
  await Promise.race([teardown.catch((err: unknown) => log.warn({ err }, 'teardown failed')), new Promise((r) => setTimeout(r, TEARDOWN_MS).unref())]);
  log.flush();
  return EXIT.ok;
}
