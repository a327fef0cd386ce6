// A real `serve --http` with a policy set that asks about `greet` and sends asks to the queue the
// /ui page answers, plus small HTTP helpers for signing in and calling.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT, startHttp, tempDir, waitFor, type HttpProcess } from '../server/helpers.js';

export const GREET = join(ROOT, 'pdk-examples/wat/build/greet.wasm');

export interface UiServer {
  server: HttpProcess;
  url: string;
  home: string;
  manifests: string;
  /** The policy set folder the server watches (set.yaml). */
  policies: string;
  secret: string;
  auditPath: string;
  stop(): Promise<void>;
}

export async function startUiServer(
  opts: { approvalTimeoutMs?: number; args?: string[]; env?: Record<string, string> } = {},
): Promise<UiServer> {
  const dir = await tempDir();
  const home = join(dir.path, 'home');
  const manifests = join(dir.path, 'manifests');
  const policies = join(dir.path, 'policies');
  await Promise.all([mkdir(manifests), mkdir(policies)]);
  const timeout = opts.approvalTimeoutMs !== undefined ? `, timeout_ms: ${opts.approvalTimeoutMs}` : '';
  await writeFile(
    join(policies, 'set.yaml'),
    [
      'entries:',
      '  - { id: audit, use: audit-log }',
      `  - { id: approvals, use: approvals, with: { channels: [queue]${timeout} } }`,
      '  - { id: ask-greet, use: ask, with: { tools: [greet], reason: "greeting someone needs a yes" } }',
      '',
    ].join('\n'),
  );
  await writeFile(
    join(manifests, 'greet.yaml'),
    [
      'apiVersion: toolgate/v1',
      'name: greet',
      'version: 1.2.3',
      'description: Greets someone by name.',
      `module: { path: ${GREET}, entry: greet }`,
      'parameters: { name: { type: string, required: true } }',
      'output: { schema: { type: object }, render: json }',
      '',
    ].join('\n'),
  );
  const server = await startHttp(
    ['--http', '127.0.0.1:0', '--manifests', manifests, '--policies', policies, ...(opts.args ?? [])],
    { TOOLGATE_HOME: home, ...opts.env },
  );
  const secret =
    opts.args?.includes('--token') === true
      ? ''
      : (
          await waitFor('the approval secret file', () =>
            readFile(join(home, 'approval-secret'), 'utf8').catch(() => undefined),
          )
        ).trim();
  return {
    server,
    url: server.url,
    home,
    manifests,
    policies,
    secret,
    auditPath: join(home, 'audit.jsonl'),
    async stop() {
      await server.stop();
      await dir.remove();
    },
  };
}

export interface CallResult {
  isError: boolean;
  error?: { code: string; message: string };
  structuredContent?: unknown;
  content?: { type: string; text?: string }[];
}

/** Starts a call over the plain API; the promise settles when the call ends. */
export function startCall(url: string, name: string, args: Record<string, unknown>): Promise<CallResult> {
  return fetch(`${url}/v1/tools/${name}/call`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ arguments: args }),
  }).then((r) => r.json() as Promise<CallResult>);
}

export interface Pending {
  id: string;
  tool: string;
  arguments: Record<string, unknown>;
  createdAt: string;
  expiresAt?: string;
}

export async function pending(s: Pick<UiServer, 'url' | 'secret'>): Promise<Pending[]> {
  const res = await fetch(`${s.url}/v1/approvals`, { headers: { authorization: `Bearer ${s.secret}` } });
  return ((await res.json()) as { approvals: Pending[] }).approvals;
}

export function waitForPending(s: Pick<UiServer, 'url' | 'secret'>, pred: (p: Pending) => boolean): Promise<Pending> {
  return waitFor('a pending approval', async () => (await pending(s)).find(pred));
}

/** Signs in as the page does (a form POST from the server's own origin); returns cookie and CSRF token. */
export async function signIn(
  s: Pick<UiServer, 'url' | 'secret'>,
  credential = s.secret,
): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${s.url}/ui/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: s.url },
    body: new URLSearchParams({ credential }).toString(),
  });
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}: ${await res.text()}`);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const state = (await (await fetch(`${s.url}/ui/api/state`, { headers: { cookie } })).json()) as { csrf: string };
  return { cookie, csrf: state.csrf };
}

export async function auditRecords(s: UiServer): Promise<Record<string, unknown>[]> {
  const text = await readFile(s.auditPath, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export interface EventStream {
  /** Resolves with the data of the first `event` (from now on, or already received) that `pred` accepts. */
  next<T>(event: string, pred: (data: T) => boolean, timeoutMs?: number): Promise<T>;
  close(): void;
}

/** The page's own event stream (/ui/api/events), read as the page reads it. */
export async function openEvents(url: string, cookie: string): Promise<EventStream> {
  const ac = new AbortController();
  const res = await fetch(`${url}/ui/api/events`, { headers: { cookie }, signal: ac.signal });
  if (res.status !== 200 || res.body === null) throw new Error(`the event stream answered ${res.status}`);
  const seen: { event: string; data: unknown }[] = [];
  const waiters = new Set<() => void>();
  void (async () => {
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffered.indexOf('\n\n')) !== -1) {
          const frame = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (event !== undefined && data !== undefined) seen.push({ event, data: JSON.parse(data) as unknown });
        }
        for (const w of waiters) w();
      }
    } catch {
      // closed
    }
  })();
  return {
    next<T>(event: string, pred: (data: T) => boolean, timeoutMs = 10_000): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const check = (): void => {
          const hit = seen.find((e) => e.event === event && pred(e.data as T));
          if (hit === undefined) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(hit.data as T);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no "${event}" event matched within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => ac.abort(),
  };
}
