// Who may see the page: a browser signs in once with the approver credential and then holds a
// session cookie (HttpOnly, SameSite=Strict, path /ui); scripts may send the credential as a
// bearer token on reads. Every state-changing request also needs the server's own Origin and the
// session's CSRF token, so a foreign page cannot answer approvals with the person's cookie.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import {
  presentsCredential,
  tokenMatches,
  type CredentialGate,
  type CredentialRefusal,
  type GuardConfig,
} from '../server/index.js';

export interface UiSession {
  readonly id: string;
  readonly csrf: string;
  readonly expires: number;
}

export type UiAccess = { kind: 'session'; session: UiSession } | { kind: 'bearer' };
/** A bearer credential from an address that guessed too often: not checked (http-server's credential limit). */
export type UiWait = { kind: 'wait'; refusal: CredentialRefusal };

/** Twelve hours: a working day at the page without signing in again; a restart ends it anyway. */
const SESSION_MS = 12 * 3600 * 1000;
const MAX_SESSIONS = 64;

export class UiSessions {
  readonly #byId = new Map<string, UiSession>();
  readonly #port: () => number;

  constructor(port: () => number) {
    this.#port = port;
  }

  /** The cookie's name carries the port, so two servers on one host keep their own sign-ins. */
  get name(): string {
    return `toolgate_ui_${this.#port()}`;
  }

  create(): UiSession {
    this.#prune();
    const s: UiSession = {
      id: randomBytes(32).toString('base64url'),
      csrf: randomBytes(32).toString('base64url'),
      expires: Date.now() + SESSION_MS,
    };
    this.#byId.set(s.id, s);
    return s;
  }

  delete(id: string): void {
    this.#byId.delete(id);
  }

  close(): void {
    this.#byId.clear();
  }

  setCookie(s: UiSession): string {
    return `${this.name}=${s.id}; Path=/ui; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(SESSION_MS / 1000)}`;
  }

  clearCookie(): string {
    return `${this.name}=; Path=/ui; HttpOnly; SameSite=Strict; Max-Age=0`;
  }

  /**
   * The session named by the request's cookie, or the bearer credential; undefined = no access.
   * A wrong bearer credential counts against the address in `gate`; a stale cookie does not (a
   * page left open across a restart is no guess, and a 256-bit session id cannot be guessed).
   */
  access(req: IncomingMessage, guard: Readonly<GuardConfig>, gate: CredentialGate): UiAccess | UiWait | undefined {
    const id = cookieValue(req.headers.cookie, this.name);
    if (id !== undefined) {
      const s = this.#byId.get(id);
      if (s !== undefined && s.expires > Date.now()) return { kind: 'session', session: s };
    }
    if (!presentsCredential(req)) return undefined;
    const refusal = gate.wait(req);
    if (refusal !== undefined) return { kind: 'wait', refusal };
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (m !== null && tokenMatches(m[1] ?? '', guard.approver)) return { kind: 'bearer' };
    gate.wrong(req);
    return undefined;
  }

  #prune(): void {
    const now = Date.now();
    for (const [id, s] of this.#byId) if (s.expires <= now) this.#byId.delete(id);
    // The oldest sign-in makes room: a flood of sign-ins cannot grow the table.
    while (this.#byId.size >= MAX_SESSIONS) {
      const oldest = this.#byId.keys().next().value;
      if (oldest === undefined) break;
      this.#byId.delete(oldest);
    }
  }
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * A state-changing request must come from the server's own page: an Origin header naming one of
 * the server's own origins (a missing Origin is refused: browsers send it on every POST).
 */
export function sameOrigin(req: IncomingMessage, guard: Readonly<GuardConfig>): string | undefined {
  const origin = req.headers.origin;
  if (origin === undefined) return 'a state-changing request needs an Origin header naming this server';
  const normal = origin.toLowerCase().replace(/\/$/, '');
  if (guard.ownOrigins?.includes(normal) === true) return undefined;
  return `Origin "${origin}" is not this server's own; the page only takes answers from itself`;
}

/** The CSRF token must equal the session's (compared in constant time). */
export function csrfMatches(presented: string | undefined, session: UiSession): boolean {
  return presented !== undefined && presented !== '' && tokenMatches(presented, session.csrf);
}
