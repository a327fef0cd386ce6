// The HTTP server's defaults and its refusal to bind insecurely: apart from http-server.ts so that
// `--help` and flag parsing do not load the transport, and apart from http-lazy.ts so that the
// transport does not import the file that loads it lazily (an import cycle).
import { ToolgateError } from '../errors/index.js';

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
export const DEFAULT_MAX_CONCURRENT = 64;
export const DEFAULT_MAX_SESSIONS = 256;
/**
 * Sessions one address may hold unless --max-sessions-per-address says otherwise: half the cap
 * (rounded up), so one client cannot take every slot and lock the others out.
 */
export function defaultSessionsPerAddress(maxSessions: number): number {
  return Math.max(1, Math.ceil(maxSessions / 2));
}
/** Five minutes: longer than any pause between a client's calls, short enough that leaks heal. */
export const DEFAULT_SESSION_IDLE_MS = 5 * 60_000;

export class InsecureBindError extends ToolgateError<'INSECURE_BIND'> {
  constructor(host: string) {
    super(
      'INSECURE_BIND',
      `refusing to listen on ${host} without a bearer token: set --token or TOOLGATE_TOKEN (anything off loopback can reach this address)`,
    );
  }
}
