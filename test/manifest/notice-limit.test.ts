// The per-plugin bound on notices (log lines, progress, notifications) a hyper-mcp plugin's calls
// send their clients: a shared token bucket; past it a notice is dropped (never queued), counted,
// and reported in the server log at most once a second. Requests are not notices.
import { expect, test } from 'vitest';
import {
  pluginNoticeLimit,
  PLUGIN_NOTICE_BURST,
  PLUGIN_NOTICES_PER_SECOND,
} from '../../host/src/manifest/notice-limit.js';
import type { CallClient, ClientRequest } from '../../host/src/tool/index.js';

function counting(): CallClient & { sent: number; asked: number } {
  const c = {
    sent: 0,
    asked: 0,
    log: () => Promise.resolve(++c.sent > 0),
    progress: () => Promise.resolve(++c.sent > 0),
    notify: () => Promise.resolve(++c.sent > 0),
    request: (_req: ClientRequest) => {
      c.asked++;
      return Promise.resolve({ ok: true as const, result: {} });
    },
  };
  return c;
}

test("a plugin's calls share one bucket: past the burst notices are dropped and counted, then refill at the plugin's rate", async () => {
  let now = 0;
  const warnings: unknown[] = [];
  const logger = { warn: (obj: unknown) => void warnings.push(obj) } as unknown as import('pino').Logger;
  const limit = pluginNoticeLimit('fx', logger, () => now);
  const a = counting();
  const b = counting();
  const callA = limit.wrap(a);
  const callB = limit.wrap(b);
  const results: boolean[] = [];
  for (let i = 0; i < PLUGIN_NOTICE_BURST; i++) results.push(await (i % 2 === 0 ? callA : callB).log('info', 'x', 't'));
  expect(results.every(Boolean)).toBe(true);
  expect(await callA.progress(1, undefined, undefined)).toBe(false);
  expect(await callB.notify?.('notifications/tools/list_changed', {})).toBe(false);
  expect(limit.dropped).toBe(2);
  expect(a.sent + b.sent).toBe(PLUGIN_NOTICE_BURST);
  expect(warnings).toHaveLength(1); // one report a second, however many are dropped
  now += 1000;
  let sent = 0;
  for (let i = 0; i < PLUGIN_NOTICES_PER_SECOND * 2; i++) if (await callA.log('info', 'y', 't')) sent++;
  expect(sent).toBe(PLUGIN_NOTICES_PER_SECOND);
  expect(warnings).toHaveLength(2);
  // requests are not notices: the policy gate and the call's caps bound them
  await callA.request({ kind: 'roots', params: {} }, new AbortController().signal, 1000);
  expect(a.asked).toBe(1);
});
