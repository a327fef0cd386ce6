// Each built-in policy, with a case it lets through and a case it stops.
import { afterEach, describe, expect, test } from 'vitest';
import { InMemoryApprovalService } from '../../host/src/approval/index.js';
import { ToolFailure, type ToolCapabilities } from '../../host/src/tool/index.js';
import { removeTemps, setup, sleep, text, tool, type Setup } from './helpers.js';

let open: Setup[] = [];
afterEach(async () => {
  for (const s of open) await s.cleanup();
  open = [];
  removeTemps();
});

async function withSet(
  yaml: string,
  ...args: Parameters<typeof setup> extends [unknown, ...infer R] ? R : never
): Promise<Setup> {
  const s = await setup({ '10-set.yaml': yaml }, ...args);
  open.push(s);
  return s;
}

const caps = (over: Partial<ToolCapabilities>): ToolCapabilities => ({
  allowedHosts: [],
  allowedPaths: {},
  secrets: [],
  ...over,
});

describe('deny-tools / allow-tools', () => {
  test('deny-tools denies a listed tool (globs too) and lets others run', async () => {
    const s = await withSet(
      'entries:\n  - { id: org-deny, use: deny-tools, with: { tools: [rm, "shell_*"], reason: no destructive shells } }\n',
      [tool('rm'), tool('shell_exec'), tool('ls')],
    );
    const rm = await s.call('rm');
    expect(rm.error?.code).toBe('DENIED');
    expect(text(rm)).toContain('no destructive shells (policy "org-deny")');
    expect((await s.call('shell_exec')).error?.code).toBe('DENIED');
    expect((await s.call('ls')).isError).toBe(false);
  });

  test('allow-tools allows listed tools and denies the rest (exclusive by default)', async () => {
    const s = await withSet('entries:\n  - { id: only-ls, use: allow-tools, with: { tools: [ls] } }\n', [
      tool('rm'),
      tool('ls'),
    ]);
    expect((await s.call('ls')).isError).toBe(false);
    const rm = await s.call('rm');
    expect(rm.error?.code).toBe('DENIED');
    expect(text(rm)).toContain('not on the allow list');
  });

  test('allow-tools with exclusive: false passes unlisted tools on to later entries', async () => {
    const s = await withSet(
      'entries:\n  - { id: fast, use: allow-tools, with: { tools: [ls], exclusive: false } }\n  - { id: ask-rm, use: ask, with: { tools: [rm, ls] } }\n',
      [tool('rm'), tool('ls')],
    );
    expect((await s.call('ls')).isError).toBe(false); // allowed before ask-rm is reached
    expect((await s.call('rm')).error?.code).toBe('APPROVAL_DENIED'); // passed on: asked, nobody answers
  });
});

describe('deny-args', () => {
  const yaml = 'entries:\n  - { id: no-env, use: deny-args, with: { patterns: [{ glob: "**/.env*" }] } }\n';

  test('a string argument matching **/.env* at any depth is denied; the reason names the key, not the value', async () => {
    const s = await withSet(yaml, [tool('read')]);
    for (const args of [
      { path: '.env' },
      { path: '/srv/app/.env.local' },
      { nested: { list: ['ok', 'conf/.env'] } },
      { path: 'a/./b/../.env' },
    ]) {
      const r = await s.call('read', args);
      expect(r.error?.code, JSON.stringify(args)).toBe('DENIED');
    }
    const r = await s.call('read', { deep: { files: ['x', '/home/u/.env.prod'] } });
    expect(text(r)).toContain('argument "deep.files[1]" matches **/.env*');
    expect(text(r)).not.toContain('/home/u/.env.prod');
  });

  test('arguments that do not match run', async () => {
    const s = await withSet(yaml, [tool('read')]);
    for (const args of [{ path: 'README.md' }, { path: '/srv/app/env.txt' }, { text: 'the .envelope' }]) {
      expect((await s.call('read', args)).isError, JSON.stringify(args)).toBe(false);
    }
  });

  test('regex patterns and a keys filter', async () => {
    const s = await withSet(
      "entries:\n  - { id: no-drop, use: deny-args, with: { patterns: [{ regex: '^drop\\s' }], keys: [sql] } }\n",
      [tool('db')],
    );
    expect((await s.call('db', { sql: 'drop table x' })).error?.code).toBe('DENIED');
    expect((await s.call('db', { note: 'drop table x' })).isError).toBe(false);
    expect((await s.call('db', { sql: 'select 1' })).isError).toBe(false);
  });
});

describe('ask', () => {
  const tools = [
    tool('fetch', { capabilities: caps({ allowedHosts: ['example.com'] }) }),
    tool('write', { capabilities: caps({ allowedPaths: { '/out': { host: '/tmp/out', mode: 'rw' } } }) }),
    tool('readonly', { capabilities: caps({ allowedPaths: { '/in': { host: '/tmp/in', mode: 'ro' } } }) }),
    tool('gh', { capabilities: caps({ secrets: ['GH_TOKEN'] }) }),
    tool('wipe', { annotations: { destructiveHint: true } }),
    tool('calc'),
  ];
  const yaml = [
    'entries:',
    '  - { id: ask-caps, use: ask, with: { capabilities: [network, fs-write, secrets] } }',
    '  - { id: ask-destructive, use: ask, with: { annotations: { destructiveHint: true } } }',
    '  - { id: ask-calc, use: ask, with: { tools: [calc] } }',
  ].join('\n');

  test('ask by capability, annotation or name with no approval channel denies (fail closed)', async () => {
    const s = await withSet(yaml, tools);
    for (const name of ['fetch', 'write', 'gh', 'wipe', 'calc']) {
      const r = await s.call(name);
      expect(r.error?.code, name).toBe('APPROVAL_DENIED');
    }
    expect((await s.call('readonly')).isError).toBe(false); // ro mount is not fs-write
  });

  test('an allowed-once answer lets exactly that call run; the reason says why it asked', async () => {
    const approval = new InMemoryApprovalService(['allowed-once'], 'rejected');
    const s = await withSet(yaml, tools, { approval });
    expect((await s.call('fetch')).isError).toBe(false);
    expect(approval.requests[0]?.reason).toContain('uses network');
    expect(approval.requests[0]?.decidedBy).toBe('ask-caps');
    expect((await s.call('fetch')).error?.code).toBe('APPROVAL_DENIED');
  });

  test('ask lets a later deny stand without asking anyone', async () => {
    const approval = new InMemoryApprovalService([], 'allowed-once');
    const s = await withSet(`${yaml}\n  - { id: no-fetch, use: deny-tools, with: { tools: [fetch] } }\n`, tools, {
      approval,
    });
    expect((await s.call('fetch')).error?.code).toBe('DENIED');
    expect(approval.requests).toHaveLength(0);
  });
});

describe('guard-paths / guard-hosts / plan-mode', () => {
  test('guard-paths denies path arguments under a protected glob, also when spelled with .. or file://', async () => {
    const s = await withSet(
      'entries:\n  - { id: red-paths, use: guard-paths, with: { deny: ["/etc/**", "**/.ssh/**"] } }\n',
      [tool('read')],
    );
    for (const p of [
      '/etc/passwd',
      '/tmp/../etc/shadow',
      'file:///etc/hosts',
      '/home/u/.ssh/id_rsa',
      { nested: ['/etc/x'] },
    ]) {
      const r = await s.call('read', typeof p === 'string' ? { path: p } : p);
      expect(r.error?.code, JSON.stringify(p)).toBe('GUARD_DENIED');
    }
    expect((await s.call('read', { path: '/tmp/notes.txt' })).isError).toBe(false);
    expect((await s.call('read', { path: 'https://example.com/etc/passwd' })).isError).toBe(false); // a URL, not a path
  });

  test("guard-paths checks the tool's allowed_paths: a mount that covers a protected path is refused", async () => {
    const s = await withSet('entries:\n  - { id: red-paths, use: guard-paths, with: { deny: ["/etc/**"] } }\n', [
      tool('rootfs', { capabilities: caps({ allowedPaths: { '/data': { host: '/', mode: 'ro' } } }) }),
      tool('etc', { capabilities: caps({ allowedPaths: { '/data': { host: '/etc/ssl', mode: 'ro' } } }) }),
      tool('work', { capabilities: caps({ allowedPaths: { '/data': { host: '/srv/work', mode: 'rw' } } }) }),
    ]);
    expect((await s.call('rootfs')).error?.code).toBe('GUARD_DENIED');
    expect((await s.call('etc')).error?.code).toBe('GUARD_DENIED');
    expect((await s.call('work', { path: '/data/file' })).isError).toBe(false);
  });

  test('guard-paths maps a guest path through the mount to the host path it stands for', async () => {
    const s = await withSet(
      'entries:\n  - { id: red-paths, use: guard-paths, with: { deny: ["/srv/work/secret/**"], mounts: false } }\n',
      [tool('work', { capabilities: caps({ allowedPaths: { '/data': { host: '/srv/work', mode: 'rw' } } }) })],
    );
    expect((await s.call('work', { path: '/data/secret/key' })).error?.code).toBe('GUARD_DENIED');
    expect((await s.call('work', { path: '/data/public/x' })).isError).toBe(false);
  });

  test('guard-hosts denies URL and host arguments and allowed_hosts that hit the deny list', async () => {
    const s = await withSet(
      'entries:\n  - { id: red-hosts, use: guard-hosts, with: { deny: ["169.254.169.254", "*.internal", "localhost"] } }\n',
      [tool('fetch'), tool('meta', { capabilities: caps({ allowedHosts: ['169.254.169.254'] }) })],
    );
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'https://db.corp.internal:5432/x',
      'http://2852039166/',
      'localhost:8080',
    ]) {
      expect((await s.call('fetch', { url })).error?.code, url).toBe('GUARD_DENIED');
    }
    expect((await s.call('meta')).error?.code).toBe('GUARD_DENIED');
    expect((await s.call('fetch', { url: 'https://example.com/' })).isError).toBe(false);
  });

  test('guard-hosts with an allow list refuses every other host', async () => {
    const s = await withSet(
      'entries:\n  - { id: only-docs, use: guard-hosts, with: { allow: ["docs.example.com", "*.github.com"] } }\n',
      [tool('fetch')],
    );
    expect((await s.call('fetch', { url: 'https://docs.example.com/a' })).isError).toBe(false);
    expect((await s.call('fetch', { url: 'https://api.github.com/x' })).isError).toBe(false);
    expect((await s.call('fetch', { url: 'https://evil.example.net/' })).error?.code).toBe('GUARD_DENIED');
  });

  test('plan-mode runs only readOnlyHint tools', async () => {
    const s = await withSet('entries:\n  - { id: plan, use: plan-mode }\n', [
      tool('look', { annotations: { readOnlyHint: true } }),
      tool('touch'),
    ]);
    expect((await s.call('look')).isError).toBe(false);
    const r = await s.call('touch');
    expect(r.error?.code).toBe('GUARD_DENIED');
    expect(text(r)).toContain('plan mode');
  });
});

describe('rate-limit', () => {
  test('a token bucket per tool denies the call over the burst and refills with time', async () => {
    const s = await withSet(
      'entries:\n  - { id: slow-down, use: rate-limit, with: { capacity: 2, refillPerSecond: 20 } }\n',
      [tool('a'), tool('b')],
    );
    expect((await s.call('a')).isError).toBe(false);
    expect((await s.call('a')).isError).toBe(false);
    const third = await s.call('a');
    expect(third.error?.code).toBe('RATE_LIMITED');
    expect(text(third)).toContain('rate limit');
    expect((await s.call('b')).isError).toBe(false); // its own bucket
    await sleep(120); // 20/s refills at least one token
    expect((await s.call('a')).isError).toBe(false);
  });

  test('per agent: each agent has its own bucket', async () => {
    const s = await withSet(
      'entries:\n  - { id: per-agent, use: rate-limit, with: { capacity: 1, refillPerSecond: 0.001, per: [agent] } }\n',
      [tool('a')],
    );
    expect((await s.call('a', {}, { agent: 'x' })).isError).toBe(false);
    expect((await s.call('a', {}, { agent: 'x' })).error?.code).toBe('RATE_LIMITED');
    expect((await s.call('a', {}, { agent: 'y' })).isError).toBe(false);
  });

  test('policy explain (dry run) counts nothing', async () => {
    const s = await withSet(
      'entries:\n  - { id: once, use: rate-limit, with: { capacity: 1, refillPerSecond: 0.001 } }\n',
      [tool('a')],
    );
    for (let i = 0; i < 5; i++) expect((await s.host.pipeline.explain('a', {})).outcome).toBe('allow');
    expect((await s.call('a')).isError).toBe(false);
    expect((await s.host.pipeline.explain('a', {})).outcome).toBe('deny');
    expect((await s.call('a')).error?.code).toBe('RATE_LIMITED');
  });
});

describe('deadline / retry', () => {
  test('deadline turns a body that runs too long into TIMEOUT and the caller is answered in time', async () => {
    const s = await withSet('entries:\n  - { id: short, use: deadline, with: { ms: 50 } }\n', [
      tool('slow', { execute: () => new Promise((r) => setTimeout(() => r('late'), 2_000)) }),
      tool('quick'),
    ]);
    const t0 = performance.now();
    const r = await s.call('slow');
    expect(performance.now() - t0).toBeLessThan(1_000);
    expect(r.error?.code).toBe('TIMEOUT');
    expect(text(r)).toContain('50 ms');
    expect((await s.call('quick')).isError).toBe(false);
  });

  test('deadline: a body that honours the signal and throws still reports TIMEOUT, not TOOL_ERROR', async () => {
    const s = await withSet('entries:\n  - { id: short, use: deadline, with: { ms: 30 } }\n', [
      tool('polite', {
        execute: (_a, exec) =>
          new Promise((_r, reject) =>
            exec.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true }),
          ),
      }),
    ]);
    expect((await s.call('polite')).error?.code).toBe('TIMEOUT');
  });

  const flaky = (name: string, idempotent: boolean, failures: number) => {
    let runs = 0;
    return {
      get runs() {
        return runs;
      },
      def: tool(name, {
        annotations: { idempotentHint: idempotent },
        execute: () => {
          runs++;
          if (runs <= failures) throw new ToolFailure('TOOL_ERROR', `flake ${runs}`);
          return { runs };
        },
      }),
    };
  };

  test('retry repeats an idempotent tool until it succeeds, within the attempt bound', async () => {
    const ok = flaky('idem', true, 2);
    const never = flaky('idem_bad', true, 100);
    const s = await withSet('entries:\n  - { id: again, use: retry, with: { attempts: 3, backoffMs: 5 } }\n', [
      ok.def,
      never.def,
    ]);
    const r = await s.call('idem');
    expect(r.isError).toBe(false);
    expect(ok.runs).toBe(3);
    expect((await s.call('idem_bad')).error?.code).toBe('TOOL_ERROR');
    expect(never.runs).toBe(3);
  });

  test('retry never repeats a tool without idempotentHint', async () => {
    const once = flaky('mutating', false, 1);
    const s = await withSet('entries:\n  - { id: again, use: retry, with: { attempts: 5, backoffMs: 1 } }\n', [
      once.def,
    ]);
    expect((await s.call('mutating')).error?.code).toBe('TOOL_ERROR');
    expect(once.runs).toBe(1);
  });

  test('retry stops once the caller aborted', async () => {
    const never = flaky('idem', true, 100);
    const s = await withSet('entries:\n  - { id: again, use: retry, with: { attempts: 10, backoffMs: 40 } }\n', [
      never.def,
    ]);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 60);
    const r = await s.call('idem', {}, { signal: ac.signal });
    expect(r.error?.code).toBe('ABORTED');
    const seen = never.runs;
    await sleep(200);
    expect(never.runs).toBe(seen);
    expect(seen).toBeLessThanOrEqual(3);
  });
});

describe('redact / max-output', () => {
  test('redact removes secrets, tokens and emails from the canonical value, so structuredContent and content are clean', async () => {
    const secret = 'hunter2-very-secret-value';
    const s = await withSet(
      'entries:\n  - { id: scrub, use: redact }\n',
      [
        tool('leaky', {
          capabilities: { allowedHosts: [], allowedPaths: {}, secrets: ['LEAKY_SECRET'] },
          execute: () => ({
            token: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
            owner: 'alice@example.com',
            nested: [{ v: `key is ${secret}` }],
            n: 1,
          }),
        }),
      ],
      { env: { LEAKY_SECRET: secret } },
    );
    const r = await s.call('leaky');
    expect(r.isError).toBe(false);
    const all = JSON.stringify(r);
    expect(all).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(all).not.toContain('alice@example.com');
    expect(all).not.toContain(secret);
    expect(r.structuredContent).toEqual({
      token: '[REDACTED]',
      owner: '[REDACTED]',
      nested: [{ v: 'key is [REDACTED]' }],
      n: 1,
    });
    expect(text(r)).toContain('[REDACTED]');
  });

  test('redact leaves clean values untouched', async () => {
    const s = await withSet('entries:\n  - { id: scrub, use: redact }\n', [
      tool('clean', { execute: () => ({ a: 'nothing to hide' }) }),
    ]);
    expect((await s.call('clean')).structuredContent).toEqual({ a: 'nothing to hide' });
  });

  test('redact cleans the message of a failed result too (it has no value to replace)', async () => {
    const s = await withSet('entries:\n  - { id: scrub, use: redact }\n', [
      tool('fails', {
        execute: () => {
          throw new Error('auth failed for token=abcd1234efgh with sk-ant-0123456789abcdefghij');
        },
      }),
    ]);
    const r = await s.call('fails');
    expect(r.error?.code).toBe('TOOL_ERROR');
    expect(text(r)).not.toContain('abcd1234efgh');
    expect(text(r)).not.toContain('sk-ant-0123456789abcdefghij');
    expect(text(r)).toContain('token=[REDACTED]');
  });

  test('max-output blocks results whose rendered content is over the limit', async () => {
    const s = await withSet('entries:\n  - { id: cap, use: max-output, with: { bytes: 100 } }\n', [
      tool('big', { execute: () => 'x'.repeat(500) }),
      tool('small', { execute: () => 'ok' }),
    ]);
    const r = await s.call('big');
    expect(r.error?.code).toBe('BLOCKED');
    expect(text(r)).toContain('over the limit of 100 bytes');
    expect((await s.call('small')).isError).toBe(false);
  });
});

describe('metrics', () => {
  test('calls, denials, durations and timeouts appear in the Prometheus text', async () => {
    const s = await withSet(
      [
        'entries:',
        '  - { id: stats, use: metrics }',
        '  - { id: no-rm, use: deny-tools, with: { tools: [rm] } }',
        '  - { id: short, use: deadline, with: { ms: 20, tools: [slow] } }',
      ].join('\n'),
      [tool('ls'), tool('rm'), tool('slow', { execute: () => new Promise((r) => setTimeout(() => r(1), 1_000)) })],
    );
    await s.call('ls');
    await s.call('ls');
    await s.call('rm');
    await s.call('slow');
    const unregister = s.services.metrics.gauge('toolgate_live_instances', 'Live sandbox instances per tool.', () => [
      { labels: { tool: 'ls' }, value: 3 },
    ]);
    const out = s.services.metrics.renderMetrics();
    unregister();
    expect(out).toContain('toolgate_calls_total{outcome="ok",tool="ls"} 2');
    expect(out).toContain('toolgate_calls_total{outcome="DENIED",tool="rm"} 1');
    expect(out).toContain('toolgate_denials_total{entry="no-rm"} 1');
    expect(out).toContain('toolgate_timeouts_total{tool="slow"} 1');
    expect(out).toContain('toolgate_call_duration_seconds_bucket{tool="ls",le="+Inf"} 2');
    expect(out).toContain('toolgate_call_duration_seconds_count{tool="ls"} 2');
    expect(out).toContain('toolgate_live_instances{tool="ls"} 3');
    expect(s.services.metrics.renderMetrics()).not.toContain('toolgate_live_instances{tool="ls"}');
  });
});
