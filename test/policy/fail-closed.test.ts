// Policies that fail closed, each rule driven through the real CLI (`toolgate call` and
// `toolgate policy explain`, the shipped bundle, on real policy folders and real WASM manifests).
import { copyFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { ToolResult } from '../../host/src/tool/index.js';
import { runToolgate } from '../server/helpers.js';
import { runShipped } from '../support/shipped-cli.js';
import { captureIO } from './cli-io.js';
import { removeTemps, tempDir, writeFiles } from './helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SPIN_WASM = join(ROOT, 'test/fixtures/build/server_spin.wasm');
afterEach(() => {
  removeTemps();
});

function cli(cwd: string, argv: string[]): Promise<{ code: number; out: string; err: string }> {
  return runShipped(argv, { cwd, env: { TOOLGATE_HOME: join(cwd, 'home') } });
}

async function call(cwd: string, tool: string, args: unknown, more: string[] = []): Promise<ToolResult> {
  const r = await cli(cwd, ['call', tool, '--args', JSON.stringify(args), '--policies', 'pol', '--json', ...more]);
  if (r.code === 2) throw new Error(`usage error: ${r.err}`);
  return JSON.parse(r.out) as ToolResult;
}

function project(entries: string[], files: Record<string, string> = {}): string {
  const cwd = tempDir();
  writeFiles(cwd, { 'pol/10.yaml': `entries:\n${entries.map((e) => `  - ${e}`).join('\n')}\n`, ...files });
  return cwd;
}

const text = (r: ToolResult): string => r.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');

describe('red lines are guards', () => {
  test('deny-tools denies a tool that allow-tools allows, in both orders', async () => {
    const allow = '{ id: allow-echo, use: allow-tools, with: { tools: [echo] } }';
    const deny = '{ id: deny-echo, use: deny-tools, with: { tools: [echo] } }';
    for (const order of [
      [allow, deny],
      [deny, allow],
    ]) {
      const cwd = project(order);
      const r = await call(cwd, 'echo', { text: 'hi' });
      expect(r.isError, order.join(' | ')).toBe(true);
      expect(r.error?.code).toBe('DENIED');
      expect(text(r)).toContain('tool "echo" is denied (policy "deny-echo")');
      const ex = await cli(cwd, ['policy', 'explain', 'echo', '--args', '{"text":"hi"}', '--policies', 'pol']);
      expect(ex.code).toBe(1);
      expect(ex.out).toContain('outcome:    deny (DENIED)');
    }
  });

  test('deny-args denies what a module that allows everything and comes first would let through', async () => {
    const allowAll = resolve(import.meta.dirname, 'fixtures/allow-all.mjs');
    const cwd = project([
      `{ id: yes, use: ${JSON.stringify(allowAll)} }`,
      '{ id: no-env, use: deny-args, with: { patterns: [{ glob: "**/.env*" }] } }',
    ]);
    const r = await call(cwd, 'echo', { text: 'conf/.env' });
    expect(r.error?.code).toBe('DENIED');
    expect(r.meta?.decision).toMatchObject({ decidedBy: 'yes', guard: { id: 'no-env' } });
    expect((await call(cwd, 'echo', { text: 'conf/ok' })).isError).toBe(false);
  });
});

describe('plan-mode reads capabilities, never annotations', () => {
  test('plan-mode denies a tool with an rw mount that declares readOnlyHint: true, and runs one with no reach', async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'tools/data'), { recursive: true });
    copyFileSync(SPIN_WASM, join(cwd, 'tools/spin.wasm'));
    const manifest = (name: string, caps: string) =>
      [
        'apiVersion: toolgate/v1',
        `name: ${name}`,
        'version: 0.1.0',
        'description: Returns its arguments unchanged.',
        'module: { path: ./spin.wasm, entry: echo }',
        'parameters:',
        '  text: { type: string, required: true, description: Any text }',
        'capabilities:',
        '  memory: { max_pages: 16 }',
        '  timeout_ms: 5000',
        caps,
        'annotations: { readOnlyHint: true }',
      ].join('\n');
    writeFiles(cwd, {
      'tools/liar.yaml': manifest('liar', '  allowed_paths: { /out: { host: ./data, mode: rw } }'),
      'tools/reader.yaml': manifest('reader', '  allowed_paths: { /in: { host: ./data, mode: ro } }'),
      'pol/10.yaml': 'entries:\n  - { id: plan, use: plan-mode }\n',
    });
    const liar = await call(cwd, 'liar', { text: 'x' }, ['--manifests', 'tools']);
    expect(liar.error?.code).toBe('GUARD_DENIED');
    expect(text(liar)).toContain('"liar" mounts /out read-write');
    const reader = await call(cwd, 'reader', { text: 'x' }, ['--manifests', 'tools']);
    expect(reader.isError, text(reader)).toBe(false);
  });
});

describe('deny-args matches normalised values', () => {
  const attacks = [
    '.ENV',
    '%2Eenv',
    'a%2F.env',
    '%252Eenv',
    'http://127.0.0.1:8080/%2eenv',
    './a/../.env',
    'a\\.env',
    's3://bucket/x/.Env.local',
    'file:///srv/%2e%65nv',
  ];

  test('deny-args matches percent-encoded, re-encoded, dotted, backslashed, URL and upper-case spellings of a denied path', async () => {
    const cwd = project(['{ id: no-env, use: deny-args, with: { patterns: [{ glob: "**/.env*" }] } }']);
    for (const value of attacks) {
      const r = await call(cwd, 'echo', { text: value });
      expect(r.error?.code, value).toBe('DENIED');
      expect(text(r), value).toContain('argument "text" matches **/.env*');
    }
    for (const fine of ['environment', 'a/env', 'docs/dotenv.md', '%2Fetc']) {
      expect((await call(cwd, 'echo', { text: fine })).isError, fine).toBe(false);
    }
  });

  test('deny-args with caseSensitive: true matches case as written', async () => {
    const cwd = project([
      '{ id: no-env, use: deny-args, with: { patterns: [{ glob: "**/.env*" }], caseSensitive: true } }',
    ]);
    expect((await call(cwd, 'echo', { text: '.ENV' })).isError).toBe(false);
    expect((await call(cwd, 'echo', { text: '%2Eenv' })).error?.code).toBe('DENIED');
  });

  test('the deny-args reason names the argument and never the value, even with a custom reason', async () => {
    const cwd = project([
      '{ id: no-env, use: deny-args, with: { patterns: [{ glob: "**/.env*" }], reason: dotenv files hold secrets } }',
    ]);
    const value = 'secret-dir-4f2a/.env';
    const r = await call(cwd, 'echo', { text: value });
    expect(r.error?.code).toBe('DENIED');
    expect(text(r)).toBe('dotenv files hold secrets: argument "text" matches **/.env* (policy "no-env")');
    expect(JSON.stringify(r.error)).not.toContain('secret-dir-4f2a');
  });

  test('deny-args with caseSensitive of the wrong type is a configuration error naming the key', async () => {
    const cwd = project([
      '{ id: no-env, use: deny-args, with: { patterns: [{ glob: "**/.env*" }], caseSensitive: "no" } }',
    ]);
    const r = await cli(cwd, ['call', 'echo', '--args', '{"text":"x"}', '--policies', 'pol']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/10\.yaml.*entries\[0\] \(id "no-env"\).*with\.caseSensitive/);
  });
});

describe('smaller rules', () => {
  test('a rate-limit denial carries RATE_LIMITED', async () => {
    const cwd = project(['{ id: once, use: rate-limit, with: { capacity: 1, refillPerSecond: 0.001 } }']);
    // Each `toolgate call` is a new process with full buckets: drive two calls through one runtime.
    const { createRuntime } = await import('../../host/src/cli/runtime.js');
    const rt = await createRuntime({
      io: captureIO(cwd, { TOOLGATE_HOME: join(cwd, 'home') }),
      manifests: [],
      policies: 'pol',
    });
    try {
      expect((await rt.pipeline.call('echo', { text: 'a' })).isError).toBe(false);
      const second = await rt.pipeline.call('echo', { text: 'b' });
      expect(second.error?.code).toBe('RATE_LIMITED');
      expect(second.content[0]).toMatchObject({ type: 'text' });
    } finally {
      await rt.dispose();
    }
  });

  test('approvals timeout_ms bounds how long a person gets to answer', async () => {
    const { setup, tool } = await import('./helpers.js');
    const s = await setup(
      {
        'set.yaml':
          'entries:\n  - { id: approvals, use: approvals, with: { channels: [queue], timeout_ms: 200 } }\n  - { id: ask-x, use: ask, with: { tools: [x] } }\n',
      },
      [tool('x')],
    );
    const close = s.services.queue.openForAnswers(); // as `serve --http` does: someone could answer
    try {
      const t0 = performance.now();
      const r = await s.call('x');
      expect(r.error?.code).toBe('APPROVAL_DENIED');
      expect(text(r)).toContain('approval timed out after 200 ms');
      expect(performance.now() - t0).toBeLessThan(60_000); // the default is 120 s
    } finally {
      close();
      await s.cleanup();
    }
  });

  test('toolgate call with an ask routed to the queue is denied at once: no server runs, so nobody could answer', async () => {
    const cwd = project([
      '{ id: approvals, use: approvals, with: { channels: [tty, queue] } }',
      '{ id: ask-echo, use: ask, with: { tools: [echo] } }',
    ]);
    const r = await call(cwd, 'echo', { text: 'x' });
    expect(r.error?.code).toBe('APPROVAL_DENIED');
    expect(text(r)).toContain('no approval channel available');
    expect(r.meta?.decision).toMatchObject({ approval: { outcome: 'unavailable' } });
  });

  test('approvals timeout_ms that is not a positive integer is a configuration error naming the key', async () => {
    const cwd = project(['{ id: approvals, use: approvals, with: { channels: [queue], timeout_ms: -5 } }']);
    const r = await cli(cwd, ['call', 'echo', '--args', '{"text":"x"}', '--policies', 'pol']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/entries\[0\] \(id "approvals"\).*with\.timeout_ms/);
  });

  test('a call a guard denies never reaches a person', async () => {
    // The queue would hold the request until the 120 s default; a guard denial answers at once.
    const cwd = project([
      '{ id: approvals, use: approvals, with: { channels: [queue] } }',
      '{ id: ask-echo, use: ask, with: { tools: [echo] } }',
      '{ id: red, use: guard-paths, with: { deny: ["/etc/**"] } }',
    ]);
    const r = await call(cwd, 'echo', { text: '/etc/shadow' });
    expect(r.error?.code).toBe('GUARD_DENIED');
    expect((r.meta?.decision as { approval?: unknown }).approval).toBeUndefined();
  });

  test('a deadline policy bounds a pre-execute listener that never answers', async () => {
    const hang = resolve(import.meta.dirname, 'fixtures/hang.mjs');
    const cwd = project([
      '{ id: short, use: deadline, with: { ms: 300 } }',
      `{ id: hang, use: ${JSON.stringify(hang)}, with: { stage: pre } }`,
    ]);
    const t0 = performance.now();
    const r = await call(cwd, 'echo', { text: 'x' });
    expect(r.error?.code).toBe('TIMEOUT');
    expect(text(r)).toContain('set by policy "short"');
    expect(text(r)).toContain('tools/pre-execute (listener "hang")');
    expect(performance.now() - t0).toBeLessThan(15_000); // the old fixed bound was 30 s
  });

  test('a deadline policy of 500 ms ends a wrapper that never calls next() long before the manifest timeout', async () => {
    const hang = resolve(import.meta.dirname, 'fixtures/hang.mjs');
    const cwd = tempDir();
    writeFiles(cwd, {
      'tools/slow.yaml': [
        'apiVersion: toolgate/v1',
        'name: slow',
        'version: 0.1.0',
        'description: Returns its arguments unchanged.',
        'module: { path: ./spin.wasm, entry: echo }',
        'capabilities: { memory: { max_pages: 16 }, timeout_ms: 5000 }',
      ].join('\n'),
      'pol/10.yaml': `entries:\n  - { id: half-second, use: deadline, with: { ms: 500 } }\n  - { id: hang, use: ${JSON.stringify(hang)}, with: { stage: execute } }\n`,
    });
    copyFileSync(SPIN_WASM, join(cwd, 'tools/spin.wasm'));
    const t0 = performance.now();
    const r = await call(cwd, 'slow', {}, ['--manifests', 'tools']);
    const ms = performance.now() - t0;
    expect(r.error?.code).toBe('TIMEOUT');
    expect(text(r)).toContain('deadline of 500 ms (set by policy "half-second")');
    expect(text(r)).toContain('tools/execute (wrapper "hang")');
    expect(ms).toBeLessThan(2_500); // under half the manifest's 5 s
  });
});

describe('redact scrubs keys as well as values', () => {
  test('redact scrubs a secret used as an object key from content, structuredContent and the audit line', async () => {
    const secret = 'hunter2-secret-key';
    const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const cwd = tempDir();
    copyFileSync(SPIN_WASM, join(cwd, 'spin.wasm'));
    writeFiles(cwd, {
      'tools/mirror.yaml': [
        'apiVersion: toolgate/v1',
        'name: mirror',
        'version: 0.1.0',
        'description: Returns its arguments unchanged.',
        'module: { path: ./spin.wasm, entry: echo }',
        'parameters:',
        '  data: { type: object, description: anything }',
        'capabilities: { memory: { max_pages: 16 }, secrets: [MIRROR_SECRET] }',
      ].join('\n'),
      'pol/10.yaml': `entries:\n  - { id: scrub, use: redact }\n  - { id: audit, use: audit-log, with: { path: ${JSON.stringify(join(cwd, 'audit.jsonl'))} } }\n`,
    });
    copyFileSync(SPIN_WASM, join(cwd, 'tools/spin.wasm'));
    const args = { data: { [secret]: 'v', nested: { [token]: 1, [`${secret}`.toUpperCase()]: 2 }, [`${secret}-`]: 3 } };
    // The built binary: the secret comes from the process environment, as for a user.
    const run = await runToolgate(
      [
        'call',
        'mirror',
        '--args',
        JSON.stringify(args),
        '--manifests',
        join(cwd, 'tools'),
        '--policies',
        join(cwd, 'pol'),
        '--json',
      ],
      { TOOLGATE_HOME: join(cwd, 'home'), MIRROR_SECRET: secret },
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const r = JSON.parse(run.stdout) as ToolResult;
    const { readFileSync } = await import('node:fs');
    const audit = readFileSync(join(cwd, 'audit.jsonl'), 'utf8');
    for (const where of [JSON.stringify(r.content), JSON.stringify(r.structuredContent), audit]) {
      expect(where).not.toContain(secret);
      expect(where).not.toContain(token);
    }
    // Both keys that came out the same are kept: neither value is lost.
    expect(r.structuredContent).toEqual({
      data: { '[REDACTED]': 'v', nested: { '[REDACTED]': 1, [secret.toUpperCase()]: 2 }, '[REDACTED]-': 3 },
    });
  });
});

describe('policy file errors say where', () => {
  async function refused(yaml: string): Promise<string> {
    const cwd = tempDir();
    writeFiles(cwd, { 'pol/10.yaml': yaml });
    const r = await cli(cwd, ['call', 'echo', '--args', '{"text":"x"}', '--policies', 'pol']);
    expect(r.code).toBe(2);
    return r.err;
  }

  test('policy file errors give the file, line, column, entry and key', async () => {
    // A YAML syntax error: the file and the line and column the parser stopped at.
    expect(await refused('entries:\n  - { id: a, use: deny-tools, with: { tools: [x] }\n')).toMatch(
      /10\.yaml: not valid YAML \(line 3, column 1\): /,
    );
    // A bad value: entry, key path and where the value is written.
    expect(
      await refused(
        'entries:\n  - id: ok\n    use: metrics\n  - id: cap\n    use: max-output\n    with:\n      bytes: -1\n',
      ),
    ).toMatch(/10\.yaml: entries\[1\] \(id "cap"\): with\.bytes: .* \(line 7, column 14\)/);
    // An unknown key: where that key is written.
    expect(
      await refused('entries:\n  - id: a\n    use: deny-tools\n    with:\n      tools: [x]\n      tool: [y]\n'),
    ).toMatch(/10\.yaml: entries\[0\] \(id "a"\): with: Unrecognized key: "tool" \(line 6, column 13\)/);
    // An unknown built-in.
    expect(await refused('entries:\n  - { id: x, use: nope }\n')).toMatch(
      /10\.yaml: entries\[0\] \(id "x"\)\.use: unknown policy "nope" .*\(line 2, column 19\)/,
    );
  });
});

describe('policy explain reports what the pipeline decides', () => {
  test('policy explain reports the outcome the pipeline gives; an argument the sandbox will refuse is a note beside it, not a denial', async () => {
    const cwd = project(['{ id: ask-net, use: ask, with: { capabilities: [network] } }']);
    const manifests = join(ROOT, 'manifests');
    const explain = (tool: string, args: object) =>
      cli(cwd, [
        'policy',
        'explain',
        tool,
        '--args',
        JSON.stringify(args),
        '--policies',
        'pol',
        '--manifests',
        manifests,
      ]);
    const far = await explain('fetch_url', { url: 'https://example.com/x' });
    expect(far.code).toBe(1);
    expect(far.out).toContain('outcome:    ask');
    expect(far.out).toContain(
      'sandbox:    note: the sandbox will refuse argument "url": it names example.com:443, which is not in the tool\'s allowed_hosts',
    );
    const near = await explain('fetch_url', { url: 'http://127.0.0.1:8080/page' });
    expect(near.out).toContain('outcome:    ask');
    expect(near.out).not.toContain('sandbox:');
    const outside = await explain('grep_files', { pattern: 'x', path: '/etc/passwd' });
    expect(outside.code).toBe(0);
    expect(outside.out).toContain('outcome:    allow');
    expect(outside.out).toContain('"path": it names /etc/passwd, which is outside the tool\'s mounts (/data)');
    const within = await explain('grep_files', { pattern: 'x', path: '/data/guides' });
    expect(within.code).toBe(0);
    expect(within.out).not.toContain('sandbox:');
  });

  test('what policy explain answers for a URL outside allowed_hosts is what the call gets: the call runs and the sandbox refuses the request inside it', async () => {
    const cwd = project(['{ id: allow-fetch, use: allow-tools, with: { tools: [fetch_url] } }']);
    const manifests = join(ROOT, 'manifests');
    const args = { url: 'http://169.254.169.254/latest' };
    const ex = await cli(cwd, [
      'policy',
      'explain',
      'fetch_url',
      '--args',
      JSON.stringify(args),
      '--policies',
      'pol',
      '--manifests',
      manifests,
      '--json',
    ]);
    expect(ex.code).toBe(0);
    const e = JSON.parse(ex.out) as { outcome: string; sandbox?: string };
    expect(e.outcome).toBe('allow');
    expect(e.sandbox).toMatch(/169\.254\.169\.254:80, which is not in the tool's allowed_hosts/);
    const r = await call(cwd, 'fetch_url', args, ['--manifests', manifests]);
    // Not a pipeline denial: the tool ran and its request was refused by the sandbox.
    expect(r.error?.code).not.toBe('DENIED');
    expect(r.error?.code).not.toBe('GUARD_DENIED');
    expect(text(r)).toMatch(/169\.254\.169\.254/);
  });
});

describe('approvals belong to their set', () => {
  test('unloading a set cancels its pending approvals: the waiting call is denied, not left to a queue no set serves', async () => {
    const { setup, tool } = await import('./helpers.js');
    const s = await setup(
      {
        'set.yaml':
          'entries:\n  - { id: approvals, use: approvals, with: { channels: [queue] } }\n  - { id: ask-x, use: ask, with: { tools: [x] } }\n',
      },
      [tool('x')],
    );
    const close = s.services.queue.openForAnswers();
    try {
      const waiting = s.call('x');
      const until = Date.now() + 10_000;
      while (s.services.queue.list().length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      expect(s.services.queue.list()).toHaveLength(1);
      await s.policies.dispose();
      const r = await waiting;
      expect(r.error?.code).toBe('APPROVAL_DENIED');
      expect(s.services.queue.list()).toHaveLength(0);
    } finally {
      close();
      await s.cleanup();
    }
  });
});
