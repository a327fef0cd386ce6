// The seam for more HTTP routes (the /ui page): a mount owns a path prefix and authenticates its
// own requests (a browser page cannot send a bearer header on a navigation), after the Host and
// Origin checks every request passes. It is served under the per-client concurrency cap.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CredentialGate } from './credential-limit.js';
import type { GuardConfig } from './http-guard.js';

export interface MountRequest {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** The body, refused past the server's cap (BodyTooLargeError answers 413). */
  body(): Promise<Buffer>;
  /** The checks' configuration: the approver credential, the token, the server's own origins. */
  guard: Readonly<GuardConfig>;
  /** The failed-credential limit: ask it before checking a credential, tell it of a wrong one. */
  credentials: CredentialGate;
}

export interface HttpMount {
  /** e.g. '/ui': the mount gets that path and every path under it. */
  readonly prefix: string;
  /** What it is, for the index at `GET /`. */
  readonly summary?: string;
  handle(request: MountRequest): Promise<void>;
  /** Ends what the mount holds open (event streams) when the server closes. */
  close?(): void;
}

export function mountFor(mounts: readonly HttpMount[], pathname: string): HttpMount | undefined {
  return mounts.find((m) => pathname === m.prefix || pathname.startsWith(`${m.prefix}/`));
}

/** Who answered an approval over HTTP, as the audit log records it. */
export function answererOf(via: string, guard: Readonly<GuardConfig>, req: IncomingMessage): string {
  const credential = guard.token !== undefined ? 'token' : 'approval secret';
  return `${via}: ${credential}, ${req.socket.remoteAddress ?? 'unknown address'}`;
}
