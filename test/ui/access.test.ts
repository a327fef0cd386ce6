// Who may see and answer through /ui, written as the attacks: no or a wrong credential, a foreign
// page posting with the person's cookie, a missing CSRF token, an answer sent twice or too late.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROOT, runToolgate } from '../server/helpers.js';
import {
  auditRecords,
  openEvents,
  pending,
  signIn,
  startCall,
  startUiServer,
  waitForPending,
  type CallResult,
  type UiServer,
} from './helpers.js';

const MARKER = 'private-argument-5d1e';
let s: UiServer;
let held: Promise<CallResult>;

beforeAll(async () => {
  s = await startUiServer();
  held = startCall(s.url, 'greet', { name: MARKER });
  await waitForPending(s, (p) => p.arguments.name === MARKER);
}, 60_000);

afterAll(async () => {
  await s?.stop();
});

const answer = (id: string, headers: Record<string, string>, outcome = 'allowed-once') =>
  fetch(`${s.url}/ui/api/approvals/${id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ outcome }),
  });

describe('/ui without the approver credential', () => {
  test('the page is the sign-in form, answered 401 with no data', async () => {
    const res = await fetch(`${s.url}/ui`);
    const html = await res.text();
    expect(res.status).toBe(401);
    expect(html).toContain('action="/ui/login"');
    expect(html).not.toContain(MARKER);
    expect(html).not.toContain('greet');
  });

  test.each(['/ui/api/state', '/ui/api/events'])(
    '%s is 401 with no data, with no credential, a wrong one or a made-up cookie',
    async (path) => {
      const port = new URL(s.url).port;
      for (const headers of [
        {},
        { authorization: 'Bearer not-the-secret' },
        { cookie: `toolgate_ui_${port}=made-up` },
      ] as Record<string, string>[]) {
        const res = await fetch(`${s.url}${path}`, { headers });
        const body = await res.text();
        expect(res.status).toBe(401);
        expect(body).not.toContain(MARKER);
      }
    },
  );

  test('an answer with no credential, a wrong one or a made-up cookie is 401 and the call keeps waiting', async () => {
    const [p] = (await pending(s)).filter((x) => x.arguments.name === MARKER);
    const port = new URL(s.url).port;
    for (const headers of [
      {},
      { authorization: 'Bearer not-the-secret' },
      { cookie: `toolgate_ui_${port}=made-up`, 'x-csrf-token': 'x' },
    ] as Record<string, string>[]) {
      const res = await answer(p?.id ?? '', { origin: s.url, ...headers });
      expect(res.status).toBe(401);
      expect(await res.text()).not.toContain(MARKER);
    }
    expect((await pending(s)).map((x) => x.id)).toContain(p?.id);
  });

  test('a wrong credential signs no one in', async () => {
    const res = await fetch(`${s.url}/ui/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: s.url },
      body: 'credential=guess',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(await res.text()).toMatch(/not the approver credential/);
  });

  test('a sign-in posted from a foreign page is refused even with the right credential', async () => {
    const other = s.url.replace(/:\d+$/, ':1');
    const res = await fetch(`${s.url}/ui/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: other },
      body: new URLSearchParams({ credential: s.secret }).toString(),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  test('a sign-in body without a credential is 400 naming the field', async () => {
    const res = await fetch(`${s.url}/ui/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: s.url },
      body: '{"password":"x"}',
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/credential/);
  });
});

describe('/ui signed in', () => {
  test('sign-in sets an HttpOnly, SameSite=Strict cookie scoped to /ui; the page and the pending call come with it', async () => {
    const res = await fetch(`${s.url}/ui/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: s.url },
      body: new URLSearchParams({ credential: s.secret }).toString(),
    });
    expect(res.status).toBe(303);
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/ui/);
    const { cookie: c } = await signIn(s);
    expect((await fetch(`${s.url}/ui`, { headers: { cookie: c } })).status).toBe(200);
    const state = (await (await fetch(`${s.url}/ui/api/state`, { headers: { cookie: c } })).json()) as {
      pending: {
        tool: string;
        version: string;
        signer: string;
        decidedBy: string;
        reason: string;
        capabilities: string[];
        arguments: unknown;
        expiresAt: string;
      }[];
    };
    const p = state.pending.find((x) => JSON.stringify(x.arguments).includes(MARKER));
    expect(p).toMatchObject({
      tool: 'greet',
      version: '1.2.3',
      decidedBy: 'ask-greet',
      signer: 'not signed (a local manifest)',
    });
    expect(p?.reason).toContain('greeting someone needs a yes');
    // The same plain words as `toolgate inspect`.
    const inspect = await runToolgate(['inspect', 'greet', '--manifests', s.manifests, '--json']);
    expect(p?.capabilities).toEqual(
      (JSON.parse(inspect.stdout) as { capabilityDescription: string[] }).capabilityDescription,
    );
    expect(p?.capabilities.join(' ')).toMatch(/has no network access/);
    expect(Date.parse(p?.expiresAt ?? '')).toBeGreaterThan(Date.now());
  });

  test('every /ui response carries a strict CSP; the shipped pages have no inline script, handler or style', async () => {
    for (const path of ['/ui', '/ui/static/app.js', '/ui/static/ui.css', '/ui/api/state']) {
      const res = await fetch(`${s.url}${path}`);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    for (const name of (await readdir(join(ROOT, 'ui'))).filter((n) => n.endsWith('.html'))) {
      const html = await readFile(join(ROOT, 'ui', name), 'utf8');
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
      expect(html).not.toMatch(/\son[a-z]+\s*=/i);
      expect(html).not.toMatch(/<style|\sstyle\s*=/i);
    }
  });

  test("an answer needs the session, the server's own Origin and the CSRF token; each missing piece is 403 and nothing runs", async () => {
    const { cookie, csrf } = await signIn(s);
    const [p] = (await pending(s)).filter((x) => x.arguments.name === MARKER);
    const id = p?.id ?? '';
    const other = s.url.replace(/:\d+$/, ':1');
    const attempts: Record<string, string>[] = [
      { cookie, 'x-csrf-token': csrf },
      { cookie, origin: other, 'x-csrf-token': csrf },
      { cookie, origin: s.url },
      { cookie, origin: s.url, 'x-csrf-token': 'wrong' },
      { authorization: `Bearer ${s.secret}`, origin: s.url, 'x-csrf-token': csrf },
    ];
    for (const headers of attempts) expect((await answer(id, headers)).status).toBe(403);
    expect((await pending(s)).map((x) => x.id)).toContain(id);
    const bad = await answer(id, { cookie, origin: s.url, 'x-csrf-token': csrf }, 'allow');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/outcome/);
    expect((await pending(s)).map((x) => x.id)).toContain(id);
  });

  test('allow once runs exactly that call; answered again it is 409 naming who answered, and nothing runs twice', async () => {
    const { cookie, csrf } = await signIn(s);
    const [p] = (await pending(s)).filter((x) => x.arguments.name === MARKER);
    const headers = { cookie, origin: s.url, 'x-csrf-token': csrf };
    const ok = await answer(p?.id ?? '', headers);
    expect(ok.status).toBe(200);
    const result = await held;
    expect(result.isError).toBe(false);
    const again = await answer(p?.id ?? '', headers, 'rejected');
    expect(again.status).toBe(409);
    expect(await again.text()).toMatch(/already answered \(allowed once by ui: approval secret, 127\.0\.0\.1/);
    const runs = (await auditRecords(s)).filter((r) => JSON.stringify(r.arguments).includes(MARKER));
    expect(runs).toHaveLength(1);
    expect(runs[0]?.outcome).toBe('ok');
    expect((runs[0]?.decision as { approval: { answeredBy: string } }).approval.answeredBy).toBe(
      'ui: approval secret, 127.0.0.1',
    );
  });

  test('POST /v1/approvals records its answerer too, and a second answer there is 409', async () => {
    const call = startCall(s.url, 'greet', { name: 'api-answered' });
    const p = await waitForPending(s, (x) => x.arguments.name === 'api-answered');
    const post = () =>
      fetch(`${s.url}/v1/approvals/${p.id}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.secret}` },
        body: '{"outcome":"rejected"}',
      });
    expect((await post()).status).toBe(200);
    expect((await call).error?.code).toBe('APPROVAL_DENIED');
    const second = await post();
    expect(second.status).toBe(409);
    expect(await second.text()).toMatch(/already answered \(denied by api: approval secret/);
    const rec = (await auditRecords(s)).find((r) => JSON.stringify(r.arguments).includes('api-answered'));
    expect((rec?.decision as { approval: { answeredBy: string; outcome: string } }).approval).toMatchObject({
      outcome: 'rejected',
      answeredBy: 'api: approval secret, 127.0.0.1',
    });
  });

  test('sign out needs the CSRF token and ends the session', async () => {
    const { cookie, csrf } = await signIn(s);
    const form = { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: s.url };
    expect(
      (await fetch(`${s.url}/ui/logout`, { method: 'POST', redirect: 'manual', headers: form, body: 'csrf=wrong' }))
        .status,
    ).toBe(403);
    expect((await fetch(`${s.url}/ui/api/state`, { headers: { cookie } })).status).toBe(200);
    const out = await fetch(`${s.url}/ui/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: form,
      body: new URLSearchParams({ csrf }).toString(),
    });
    expect(out.status).toBe(303);
    expect((await fetch(`${s.url}/ui/api/state`, { headers: { cookie } })).status).toBe(401);
  });
});

describe('/ui and the policy set', () => {
  interface ToolsEvent {
    policy: { loadedAt: string; entries: { id: string; use: string }[]; lastRejected?: { error: string } };
    queueInUse: boolean | null;
  }

  test('an edited policy set shows on the page with its new entries and a later load time; a broken edit shows as refused, the old set staying', async () => {
    const { cookie } = await signIn(s);
    const events = await openEvents(s.url, cookie);
    try {
      const before = await events.next<ToolsEvent>('tools', () => true);
      expect(before.policy.entries.map((e) => e.id)).toEqual(['audit', 'approvals', 'ask-greet']);
      const file = join(s.policies, 'set.yaml');
      const text = await readFile(file, 'utf8');
      await writeFile(file, `${text}  - { id: deny-echo, use: deny-tools, with: { tools: [echo] } }\n`);
      const after = await events.next<ToolsEvent>(
        'tools',
        (t) => t.policy.entries.some((e) => e.id === 'deny-echo'),
        20_000,
      );
      expect(Date.parse(after.policy.loadedAt)).toBeGreaterThan(Date.parse(before.policy.loadedAt));
      expect(after.queueInUse).toBe(true);
      await writeFile(file, `${text}  - { id: broken, use: no-such-policy }\n`);
      const refused = await events.next<ToolsEvent>('tools', (t) => t.policy.lastRejected !== undefined, 20_000);
      expect(refused.policy.lastRejected?.error).toMatch(/no-such-policy/);
      expect(refused.policy.entries.map((e) => e.id)).toContain('deny-echo');
      await writeFile(file, text);
      // A good edit after it loads, and the refusal is no longer shown as current.
      await events.next<ToolsEvent>(
        'tools',
        (t) => !t.policy.entries.some((e) => e.id === 'deny-echo') && t.policy.lastRejected === undefined,
        20_000,
      );
    } finally {
      events.close();
    }
  }, 60_000);
});

describe('/ui after expiry and with a token', () => {
  test('an answer after the approval expired is 409 saying so; the call was denied and did not run', async () => {
    const short = await startUiServer({ approvalTimeoutMs: 1500 });
    try {
      const call = startCall(short.url, 'greet', { name: 'too-late' });
      const p = await waitForPending(short, (x) => x.arguments.name === 'too-late');
      const result = await call;
      expect(result.error?.code).toBe('APPROVAL_DENIED');
      const { cookie, csrf } = await signIn(short);
      const late = await fetch(`${short.url}/ui/api/approvals/${p.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie, origin: short.url, 'x-csrf-token': csrf },
        body: '{"outcome":"allowed-once"}',
      });
      expect(late.status).toBe(409);
      expect(await late.text()).toMatch(/expired .* with no answer; the call was denied and nothing ran/);
      const recs = (await auditRecords(short)).filter((r) => JSON.stringify(r.arguments).includes('too-late'));
      expect(recs.map((r) => r.outcome)).toEqual(['error']);
    } finally {
      await short.stop();
    }
  }, 60_000);

  test('with --token the token is the credential, and no approval secret file is written', async () => {
    const token = 'tok-0123456789abcdef0123456789';
    const t = await startUiServer({ args: ['--token', token] });
    try {
      expect((await fetch(`${t.url}/ui`)).status).toBe(401);
      await expect(stat(join(t.home, 'approval-secret'))).rejects.toThrow();
      await expect(signIn(t, 'not-it')).rejects.toThrow(/401/);
      const { cookie } = await signIn(t, token);
      expect((await fetch(`${t.url}/ui`, { headers: { cookie } })).status).toBe(200);
      expect((await fetch(`${t.url}/ui/api/state`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
        200,
      );
    } finally {
      await t.stop();
    }
  }, 60_000);
});
