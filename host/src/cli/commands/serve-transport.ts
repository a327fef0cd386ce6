// The transports `toolgate serve` puts in front of its core: MCP over stdio, or Streamable HTTP with
// the plain API and the /ui page. Each one it opens is added to the caller's resources, which close
// it (and remove the approval secret) once, whichever way serving ends.
import { Readable } from 'node:stream';
import type { Scope } from '../../plugin/index.js';
import {
  newApprovalSecret,
  removeApprovalSecret,
  serveHttp,
  serveStdio,
  sinkWritable,
  writeApprovalSecret,
  type BindAddress,
  type HttpMount,
  type ManifestTools,
  type SidecarCore,
} from '../../server/index.js';
import type { CliIO } from '../command.js';
import type { Runtime } from '../runtime.js';

/** A started transport, as serve's shutdown sees it. */
export interface Transport {
  /** New connections and requests are refused from now on; running ones go on. */
  stopAccepting(): void;
  /** Resolves when the client closes stdin (never, over HTTP). */
  stdinClosed: Promise<unknown>;
}

/** The serve flags the HTTP transport reads. */
export interface HttpFlags {
  token: string | undefined;
  allowedHosts: string[];
  allowOrigins: string[];
  maxBody: number;
  maxConcurrent: number;
  maxSessions: number;
  maxSessionsPerAddress: number;
  sessionIdleMs: number;
  /** Internal: the failed-credential window (tests shorten it). */
  credentialWindowMs?: number;
}

/** What the HTTP transport serves. */
export interface Served {
  runtime: Runtime;
  core: SidecarCore;
  manifests: ManifestTools;
}

/** MCP over the CLI's stdin and stdout (stdout carries only JSON-RPC). */
export async function startStdio(
  io: CliIO,
  core: SidecarCore,
  writeStdout: (text: string) => void,
  resources: Scope,
): Promise<Transport> {
  const stdin = io.stdin instanceof Readable ? io.stdin : new Readable().wrap(io.stdin);
  const session = await serveStdio(core, stdin, sinkWritable(writeStdout));
  resources.add('stdio session', () => session.close());
  return { stopAccepting: () => {}, stdinClosed: session.closed };
}

/** MCP, the API and the /ui page over HTTP at `bind`; the address goes to stderr. */
export async function startHttp(
  flags: HttpFlags,
  bind: BindAddress,
  io: CliIO,
  served: Served,
  resources: Scope,
): Promise<Transport> {
  // Without a token, approvals need a per-start secret that only the operator can read.
  const secret = flags.token === undefined ? newApprovalSecret() : undefined;
  const secretFile = secret === undefined ? undefined : await writeApprovalSecret(served.runtime.storeDir, secret);
  if (secret !== undefined && secretFile !== undefined)
    resources.add('approval secret', () => removeApprovalSecret(secretFile, secret));
  const http = await serveHttp(served.core, {
    mounts: [await pageMount(served)],
    bind,
    ...(flags.token !== undefined ? { token: flags.token } : {}),
    ...(secret !== undefined ? { approvalSecret: secret } : {}),
    ...(secretFile !== undefined ? { approvalSecretFile: secretFile } : {}),
    allowedHosts: flags.allowedHosts,
    allowedOrigins: flags.allowOrigins,
    maxBodyBytes: flags.maxBody,
    maxConcurrentPerClient: flags.maxConcurrent,
    maxSessions: flags.maxSessions,
    maxSessionsPerAddress: flags.maxSessionsPerAddress,
    sessionIdleMs: flags.sessionIdleMs,
    ...(flags.credentialWindowMs !== undefined ? { credentialWindowMs: flags.credentialWindowMs } : {}),
  });
  resources.add('HTTP server', () => http.close());
  io.stderr(`toolgate serve: listening on ${http.url}/mcp (API at ${http.url}/v1, approvals page at ${http.url}/ui)\n`);
  if (secret !== undefined && secretFile !== undefined) io.stderr(approvalSecretNotice(io, secret, secretFile));
  return { stopAccepting: () => http.stopAccepting(), stdinClosed: new Promise(() => {}) };
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
async function pageMount({ runtime, core, manifests }: Served): Promise<HttpMount> {
  const [{ uiMount }, { uiSources }] = await Promise.all([import('../../ui/index.js'), import('../ui-sources.js')]);
  return uiMount(await uiSources(runtime, core, manifests));
}
