// The page in a real headless Chromium, as the person uses it: a call waits for approval and the
// page shows it at once; "Allow once" lets exactly that call run; the next identical call asks
// again; "Deny" denies; the recent calls show both answers with who gave them.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './chromium.js';
import { auditRecords, pending, startCall, startUiServer, waitForPending, type UiServer } from './helpers.js';

let s: UiServer;
let browser: Browser;
let page: Page;
const cspViolations: string[] = [];

async function signInWithTheForm(p: Page): Promise<void> {
  const first = await p.goto(`${s.url}/ui`);
  expect(first?.status()).toBe(401);
  await p.getByLabel('Approver credential').fill(s.secret);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByText('Live: updates arrive as they happen.').waitFor();
}

beforeAll(async () => {
  [s, browser] = await Promise.all([startUiServer(), launchChromium()]);
  page = await browser.newPage();
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  await signInWithTheForm(page);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await s?.stop();
});

const card = (id: string) => page.locator(`li.card[data-id="${id}"]`);

describe('the approvals page in Chromium', () => {
  test('a waiting call shows within 1 s; Allow once runs exactly it; the next identical call asks again; Deny denies; the audit tail shows both answerers', async () => {
    const ada = startCall(s.url, 'greet', { name: 'Ada' });
    const bob = startCall(s.url, 'greet', { name: 'Bob' });
    const pAda = await waitForPending(s, (p) => p.arguments.name === 'Ada');
    const pBob = await waitForPending(s, (p) => p.arguments.name === 'Bob');
    await card(pAda.id).waitFor();
    // From the moment the request was queued to the moment its card was on the page.
    const shownAt = Number(await card(pAda.id).getAttribute('data-shown-at'));
    const latency = shownAt - Date.parse(pAda.createdAt);
    console.log(`approval shown on the page ${latency} ms after it was queued`);
    expect(latency).toBeLessThan(1000);
    await expect(card(pAda.id).textContent()).resolves.toMatch(
      /greet.*1\.2\.3[\s\S]*not signed[\s\S]*ask-greet[\s\S]*greeting someone needs a yes[\s\S]*left[\s\S]*has no network access[\s\S]*Ada/,
    );

    await card(pAda.id).getByRole('button', { name: 'Allow once' }).click();
    const adaResult = await ada;
    expect(adaResult.isError).toBe(false);
    expect(JSON.stringify(adaResult.structuredContent)).toContain('Ada');
    // Only that call: Bob is still waiting, on the page and in the queue.
    expect((await pending(s)).map((p) => p.id)).toEqual([pBob.id]);
    await card(pAda.id).waitFor({ state: 'detached' });
    expect(await card(pBob.id).isVisible()).toBe(true);
    // The card is gone; the notice keeps what happened in view, in words.
    await expect(page.locator('#notice').textContent()).resolves.toMatch(
      /greet \(\{"name":"Ada"\}\): Allowed once: this call runs now; the next one asks again/,
    );

    // The same call again is asked about again: allow once covered one call.
    let againSettled = false;
    const again = startCall(s.url, 'greet', { name: 'Ada' }).finally(() => (againSettled = true));
    const pAgain = await waitForPending(s, (p) => p.arguments.name === 'Ada');
    expect(pAgain.id).not.toBe(pAda.id);
    await card(pAgain.id).waitFor();
    expect(againSettled).toBe(false);
    await card(pAgain.id).getByRole('button', { name: 'Deny' }).click();
    const againResult = await again;
    expect(againResult.error?.code).toBe('APPROVAL_DENIED');

    // Bob is denied from the keyboard alone: Tab to his Deny button, press Enter.
    const denyBob = card(pBob.id).getByRole('button', { name: 'Deny' });
    let reached = false;
    for (let i = 0; i < 60 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await denyBob.evaluate((b) => b === b.ownerDocument.activeElement);
    }
    expect(reached).toBe(true);
    await page.keyboard.press('Enter');
    expect((await bob).error?.code).toBe('APPROVAL_DENIED');
    // The answered card leaves; keyboard focus lands on the view's heading, not on nothing.
    await card(pBob.id).waitFor({ state: 'detached' });
    await expect.poll(() => page.evaluate('document.activeElement && document.activeElement.id')).toBe('h-pending');

    await page.getByRole('link', { name: 'Recent calls' }).click();
    const rows = page.locator('#recent-body tr[data-tool="greet"]');
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    const texts = await rows.allTextContents();
    expect(texts.some((t) => /✓ ok.*allowed once by ui: approval secret, 127\.0\.0\.1/.test(t))).toBe(true);
    expect(
      texts.filter((t) => /✗ denied.*APPROVAL_DENIED.*denied by ui: approval secret, 127\.0\.0\.1/.test(t)),
    ).toHaveLength(2);
    await expect(page.locator('#audit-verify').textContent()).resolves.toMatch(
      /✓ audit verify: the chain of \d+ records is intact/,
    );

    const answered = (await auditRecords(s)).map(
      (r) => (r.decision as { approval?: { outcome: string; answeredBy?: string } }).approval,
    );
    expect(
      answered
        .filter((a) => a?.answeredBy === 'ui: approval secret, 127.0.0.1')
        .map((a) => a?.outcome)
        .sort(),
    ).toEqual(['allowed-once', 'rejected', 'rejected']);
  }, 60_000);

  test('an answer to an approval that has already been answered shows a clear message and runs nothing', async () => {
    await page.getByRole('link', { name: 'Pending approvals' }).click();
    const call = startCall(s.url, 'greet', { name: 'Twice' });
    const p = await waitForPending(s, (x) => x.arguments.name === 'Twice');
    await card(p.id).waitFor();
    // Someone else answers first (over the API); the page's button comes second.
    const elsewhere = await fetch(`${s.url}/v1/approvals/${p.id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.secret}` },
      body: '{"outcome":"rejected"}',
    });
    expect(elsewhere.status).toBe(200);
    expect((await call).error?.code).toBe('APPROVAL_DENIED');
    // The card leaves, and the page says why in words: someone else answered, and how.
    await card(p.id).waitFor({ state: 'detached' });
    await expect(page.locator('#notice').textContent()).resolves.toMatch(
      /greet \(\{"name":"Twice"\}\): Answered by api: approval secret, 127\.0\.0\.1: denied: the call did not run\./,
    );
    // The card may already be gone (the event came first); then ask through the page's own fetch.
    const status = await page.evaluate(async (id) => {
      const state = (await (await fetch('/ui/api/state')).json()) as { csrf: string };
      const res = await fetch(`/ui/api/approvals/${id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': state.csrf },
        body: '{"outcome":"allowed-once"}',
      });
      return { code: res.status, text: await res.text() };
    }, p.id);
    expect(status.code).toBe(409);
    expect(status.text).toMatch(/already answered \(denied by api: approval secret/);
    const runs = (await auditRecords(s)).filter((r) => JSON.stringify(r.arguments).includes('Twice'));
    expect(runs.map((r) => r.outcome)).toEqual(['error']);
  });

  test('arguments are shown as text: markup stays inert, control and direction characters are shown escaped, long values fold', async () => {
    await page.getByRole('link', { name: 'Pending approvals' }).click();
    const hostile = '<img src=x id=injected><script>window.pwned=1</script>\u202eexe.txt\u0007';
    const call = startCall(s.url, 'greet', { name: hostile + 'x'.repeat(500) });
    const p = await waitForPending(s, (x) => String(x.arguments.name).startsWith('<img'));
    await card(p.id).waitFor();
    const text = (await card(p.id).textContent()) ?? '';
    expect(text).toContain('<img src=x id=injected>');
    expect(text).toContain('\\u202eexe.txt\\u0007');
    expect(text).not.toContain('\u202e');
    expect(await page.locator('#injected').count()).toBe(0);
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    const fold = card(p.id).locator('details.fold');
    await expect(fold.locator('summary').textContent()).resolves.toMatch(/\(\d+ characters; show all\)/);
    await card(p.id).getByRole('button', { name: 'Deny' }).click();
    expect((await call).error?.code).toBe('APPROVAL_DENIED');
  });

  test('every invisible and format character in an argument is spelled out and marked on the card, in what the UI fetches too', async () => {
    await page.getByRole('link', { name: 'Pending approvals' }).click();
    // "safe-value", then zero-width space/non-joiner/joiner, word joiner, BOM, soft hyphen, and
    // "then delete everything" in Unicode tag characters: a person would read only "safe-value".
    const tags = [...' then delete everything'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
    const hidden = `safe-value\u200b\u200c\u200d\u2060\ufeff\u00ad\u{e0001}${tags}\u{e007f}`;
    const call = startCall(s.url, 'greet', { name: hidden });
    const p = await waitForPending(s, (x) => String(x.arguments.name).startsWith('safe-value'));
    // The queue keeps the argument exactly as the tool will receive it.
    expect(p.arguments.name).toBe(hidden);
    await card(p.id).waitFor();
    const text = (await card(p.id).locator('dl.args dd').textContent()) ?? '';
    expect(text.startsWith('safe-value\\u200b\\u200c\\u200d\\u2060\\ufeff\\u00ad\\udb40\\udc01')).toBe(true);
    // Nothing on the card is invisible: every character left is printable ASCII.
    expect(text).toMatch(/^[\x20-\x7e]+$/);
    // Each spelled-out character is marked, with its code point named, unlike typed backslashes.
    const marks = card(p.id).locator('dl.args dd mark.hidden-char');
    expect(await marks.count()).toBe(6 + 1 + tags.length / 2 + 1);
    await expect(marks.nth(0).getAttribute('title')).resolves.toBe('hidden character U+200B');
    await expect(marks.nth(7).getAttribute('title')).resolves.toBe('hidden character U+E0020');
    await card(p.id).getByRole('button', { name: 'Deny' }).click();
    expect((await call).error?.code).toBe('APPROVAL_DENIED');
  });

  test('a card whose time runs out counts down, then leaves saying it expired and the call was denied', async () => {
    // Long enough that a loaded machine still sees the card before it expires; the countdown and
    // the leaving are what this proves, not the length.
    const short = await startUiServer({ approvalTimeoutMs: 15_000 });
    const p2 = await browser.newPage();
    try {
      await p2.goto(`${short.url}/ui`);
      await p2.getByLabel('Approver credential').fill(short.secret);
      await p2.getByRole('button', { name: 'Sign in' }).click();
      await p2.getByText('Live: updates arrive as they happen.').waitFor();
      const call = startCall(short.url, 'greet', { name: 'Slow' });
      const p = await waitForPending(short, (x) => x.arguments.name === 'Slow');
      const c = p2.locator(`li.card[data-id="${p.id}"]`);
      await c.waitFor();
      await expect(c.locator('.left').textContent()).resolves.toMatch(/^\d+ s left$|^expired$/);
      expect((await call).error?.code).toBe('APPROVAL_DENIED');
      await c.waitFor({ state: 'detached' });
      await expect(p2.locator('#notice').textContent()).resolves.toMatch(
        /greet \(\{"name":"Slow"\}\): Expired with no answer: the call was denied and did not run\./,
      );
    } finally {
      await p2.close();
      await short.stop();
    }
  }, 60_000);

  test('the tools view shows the manifest tool, its capabilities, signer, digest and the policy set in force', async () => {
    await page.getByRole('link', { name: 'Tools' }).click();
    const tool = page.locator('#tools-list li[data-tool="greet"]');
    await tool.waitFor();
    const text = (await tool.textContent()) ?? '';
    expect(text).toMatch(/greet 1\.2\.3/);
    expect(text).toMatch(/not signed \(a local manifest\)/);
    expect(text).toMatch(/[0-9a-f]{64} \(not pinned by the manifest\)/);
    expect(text).toMatch(/has no network access/);
    const policy = (await page.locator('#policy').textContent()) ?? '';
    expect(policy).toMatch(/policy set .* from --policies/);
    expect(policy).toMatch(/Loaded/);
    expect(policy).toMatch(/ask-greet \(ask\)/);
  });

  test('on a narrow screen nothing scrolls sideways, the current view is marked in words, and no CSP violation was reported', async () => {
    const narrow = await browser.newPage({ viewport: { width: 360, height: 740 } });
    try {
      await narrow.goto(`${s.url}/ui`);
      await narrow.getByLabel('Approver credential').fill(s.secret);
      await narrow.getByRole('button', { name: 'Sign in' }).click();
      await narrow.getByText('Live: updates arrive as they happen.').waitFor();
      for (const view of ['#pending', '#recent', '#tools']) {
        await narrow.evaluate(`location.hash = ${JSON.stringify(view)}`);
        const fits = await narrow.evaluate('document.documentElement.scrollWidth <= window.innerWidth');
        expect(fits, view).toBe(true);
        await expect(narrow.locator('nav a[aria-current="page"]').getAttribute('href')).resolves.toBe(view);
      }
    } finally {
      await narrow.close();
    }
    expect(cspViolations).toEqual([]);
  });
});
