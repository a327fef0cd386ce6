// /ui: the page for the person in the loop. GET /ui is the page (or, without a sign-in, the
// sign-in form with 401 and no data); /ui/static/* its script and style; /ui/api/* the data, the
// event stream and the answers. Every answer is checked for Origin and CSRF, and recorded in the
// audit log with who answered.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { answererOf, endedMessage, tokenMatches, type HttpMount, type MountRequest } from '../server/index.js';
import { Assets, SECURITY_HEADERS, isStaticAsset } from './assets.js';
import { AuditVerifier } from './audit-tail.js';
import { EndedTracker } from './ended.js';
import { EventHub } from './events.js';
import { csrfMatches, sameOrigin, UiSessions, type UiAccess } from './sessions.js';
import type { UiSources } from './sources.js';
import { pendingView, recentView, toolsView } from './views.js';

const LoginBody = z.strictObject({ credential: z.string().min(1).max(4096) });
const LogoutBody = z.strictObject({ csrf: z.string().max(256) });
const AnswerBody = z.strictObject({ outcome: z.enum(['allowed-once', 'rejected']) });

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function fail(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  json(res, status, { error: { status, message } }, headers);
}

/** A form (urlencoded) or JSON body as a plain object; undefined when it is neither. */
function formOrJson(req: IncomingMessage, raw: Buffer): unknown {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  const text = raw.toString('utf8');
  if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(text));
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const issues = (err: z.ZodError): string =>
  err.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : '(body)'}: ${i.message}`).join('; ');

/** What the page's handlers share for the life of the mount. */
interface Ui {
  src: UiSources;
  assets: Assets;
  sessions: UiSessions;
  verifier: AuditVerifier;
  hub: EventHub;
}

export function uiMount(src: UiSources): HttpMount {
  let port = 0;
  const ui: Ui = {
    src,
    assets: new Assets(src.assetsDir),
    sessions: new UiSessions(() => port),
    verifier: new AuditVerifier(),
    hub: new EventHub(),
  };
  const stopPushing = pushChanges(ui);
  return {
    prefix: '/ui',
    summary: 'the approvals page, for the person who answers asks',
    async handle(r) {
      port = r.guard.port;
      const path = r.url.pathname === '/ui/' ? '/ui' : r.url.pathname;
      const method = r.req.method ?? 'GET';
      if (path === '/ui' && (method === 'GET' || method === 'HEAD')) return page(ui, r);
      const asset = /^\/ui\/static\/([a-z.]+)$/.exec(path)?.[1];
      if (asset !== undefined && isStaticAsset(asset) && method === 'GET') return ui.assets.send(r.res, 200, asset);
      if (path === '/ui/login' && method === 'POST') return login(ui, r);
      if (path === '/ui/logout' && method === 'POST') return logout(ui, r);
      if (path.startsWith('/ui/api/')) return api(ui, r, path, method);
      return fail(r.res, 404, `no route for ${method} ${path}`);
    },
    close() {
      stopPushing();
      ui.hub.close();
      ui.sessions.close();
    },
  };
}

/** Sends each change (approvals, calls, tools) to the open event streams; returns what stops it. */
function pushChanges({ src, hub, verifier }: Ui): () => void {
  const logFail = (err: unknown): void => void err; // a view that fails to build is skipped; the next change retries
  const pushPending = () => void pendingView(src).then((v) => hub.broadcast('pending', v), logFail);
  let recentTimer: NodeJS.Timeout | undefined;
  // The audit line is written by an observer of the same result: read the file a moment after.
  const pushRecent = () => {
    recentTimer ??= setTimeout(() => {
      recentTimer = undefined;
      void recentView(src, verifier).then((v) => hub.broadcast('recent', v), logFail);
    }, 50);
  };
  const pushTools = () => void toolsView(src).then((v) => hub.broadcast('tools', v), logFail);
  const ended = src.queue === undefined ? undefined : new EndedTracker(src.queue);
  // How the approvals that left ended goes out first, so a page has the reason when their cards go.
  const queueChanged = (): void => {
    const gone = ended?.gone() ?? [];
    if (hub.size === 0) return;
    if (gone.length > 0) hub.broadcast('ended', gone);
    pushPending();
  };
  const undo = [
    src.queue?.onChange?.(queueChanged),
    src.onCall(() => hub.size > 0 && pushRecent()),
    src.onToolsChanged(() => hub.size > 0 && pushTools()),
  ];
  return () => {
    if (recentTimer !== undefined) clearTimeout(recentTimer);
    for (const u of undo) u?.();
  };
}

/** GET /ui: the page when signed in, else the sign-in form (401, no data). */
function page({ assets, sessions }: Ui, r: MountRequest): Promise<void> {
  if (sessions.access(r.req, r.guard, r.credentials)?.kind === 'session') return assets.send(r.res, 200, 'index.html');
  const stale = (r.req.headers.cookie ?? '').includes(`${sessions.name}=`);
  return assets.sendLogin(
    r.res,
    401,
    stale ? 'your sign-in has ended (the server restarted or it expired); sign in again' : undefined,
  );
}

async function answer({ src }: Ui, r: MountRequest, access: UiAccess, id: string): Promise<void> {
  if (access.kind !== 'session')
    return fail(r.res, 403, 'answers come from the signed-in page (or POST /v1/approvals/ID with the credential)');
  const origin = sameOrigin(r.req, r.guard);
  if (origin !== undefined) return fail(r.res, 403, origin);
  const header = r.req.headers['x-csrf-token'];
  if (!csrfMatches(typeof header === 'string' ? header : undefined, access.session))
    return fail(r.res, 403, 'missing or wrong CSRF token (x-csrf-token); reload the page');
  const parsed = AnswerBody.safeParse(formOrJson(r.req, await r.body()));
  if (!parsed.success) return fail(r.res, 400, issues(parsed.error));
  if (src.queue === undefined) return fail(r.res, 404, 'no approval queue is configured');
  const outcome = parsed.data.outcome;
  if (await src.queue.resolve(id, outcome, answererOf('ui', r.guard, r.req))) {
    const message =
      outcome === 'allowed-once'
        ? 'Allowed once: this call runs now; the next one asks again.'
        : 'Denied: the call will not run.';
    return json(r.res, 200, { id, outcome, message });
  }
  const ended = src.queue.ended?.(id);
  if (ended !== undefined) return fail(r.res, 409, endedMessage(ended));
  return fail(r.res, 404, `no pending approval with id "${id}"; nothing ran`);
}

async function api(ui: Ui, r: MountRequest, path: string, method: string): Promise<void> {
  const { src, verifier, hub } = ui;
  const access = ui.sessions.access(r.req, r.guard, r.credentials);
  if (access === undefined)
    return fail(r.res, 401, 'sign in at /ui with the approver credential (the token, or the approval secret)');
  if (access.kind === 'wait')
    return fail(r.res, 429, access.refusal.message, { 'retry-after': String(access.refusal.retryAfter) });
  if (path === '/ui/api/state' && method === 'GET') {
    const [pending, recent, tools] = await Promise.all([pendingView(src), recentView(src, verifier), toolsView(src)]);
    const csrf = access.kind === 'session' ? { csrf: access.session.csrf } : {};
    return json(r.res, 200, { ...csrf, pending, recent, tools });
  }
  if (path === '/ui/api/events' && method === 'GET') {
    if (!hub.open(r.res, SECURITY_HEADERS)) return fail(r.res, 503, 'too many open event streams');
    const [pending, recent, tools] = await Promise.all([pendingView(src), recentView(src, verifier), toolsView(src)]);
    hub.send(r.res, 'pending', pending);
    hub.send(r.res, 'recent', recent);
    hub.send(r.res, 'tools', tools);
    return;
  }
  const m = /^\/ui\/api\/approvals\/([^/]+)$/.exec(path);
  if (m !== null && method === 'POST') return answer(ui, r, access, decodeURIComponent(m[1] ?? ''));
  return fail(r.res, 404, `no route for ${method} ${path}`);
}

async function login({ assets, sessions }: Ui, r: MountRequest): Promise<void> {
  const origin = sameOrigin(r.req, r.guard);
  if (origin !== undefined) return assets.sendLogin(r.res, 403, origin);
  // Too many wrong sign-ins from this address: 429 until the window ends, the credential unchecked.
  const refusal = r.credentials.wait(r.req);
  if (refusal !== undefined)
    return assets.sendLogin(r.res, 429, refusal.message, { 'retry-after': String(refusal.retryAfter) });
  const parsed = LoginBody.safeParse(formOrJson(r.req, await r.body()));
  if (!parsed.success) return assets.sendLogin(r.res, 400, `credential: ${issues(parsed.error)}`);
  if (!tokenMatches(parsed.data.credential.trim(), r.guard.approver)) {
    r.credentials.wrong(r.req);
    return assets.sendLogin(
      r.res,
      401,
      'that is not the approver credential of this server (the --token, or the approval secret of this start)',
    );
  }
  const s = sessions.create();
  r.res.writeHead(303, {
    ...SECURITY_HEADERS,
    location: '/ui',
    'set-cookie': sessions.setCookie(s),
    'content-length': 0,
  });
  r.res.end();
}

async function logout({ sessions }: Ui, r: MountRequest): Promise<void> {
  const access = sessions.access(r.req, r.guard, r.credentials);
  const origin = sameOrigin(r.req, r.guard);
  if (origin !== undefined) return fail(r.res, 403, origin);
  const parsed = LogoutBody.safeParse(formOrJson(r.req, await r.body()));
  if (access?.kind !== 'session' || !parsed.success || !csrfMatches(parsed.data.csrf, access.session))
    return fail(r.res, 403, 'missing or wrong CSRF token');
  sessions.delete(access.session.id);
  r.res.writeHead(303, {
    ...SECURITY_HEADERS,
    location: '/ui',
    'set-cookie': sessions.clearCookie(),
    'content-length': 0,
  });
  r.res.end();
}
