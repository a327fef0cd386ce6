// The package as a library (package.json "exports", architecture.md §2): `npm pack`, install the
// tarball into a temporary project outside the checkout, and there import `toolgate` (an embedder
// running a call through createRuntime's pipeline) and `toolgate/policy` (a policy module loaded
// both by that embedder and by the installed command), then type-check a TypeScript consumer and a
// JavaScript policy (checkJs) against the shipped .d.ts.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let tmp = '';
let app = '';
let env: NodeJS.ProcessEnv = {};

function run(cmd: string, args: string[], cwd: string, runEnv: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<Run> {
  return new Promise((done) => {
    const child = execFile(
      cmd,
      args,
      { cwd, env: runEnv, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) =>
        done({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

/** A policy module as its author writes it: plain JavaScript, typed through toolgate/policy. */
const POLICY = `// @ts-check
import { definePolicy } from 'toolgate/policy';

export default definePolicy({
  name: 'no-secret',
  apply(ctx) {
    ctx.guard(ctx.entryId, (exec) => (exec.arguments.text === 'secret' ? 'no secrets here' : undefined));
    // @ts-expect-error ctx is typed: it has no method "allowEverything"
    if (false) ctx.allowEverything();
  },
});
`;

/** An embedder: a runtime with the policy set above, two calls through its pipeline. */
const EMBEDDER = `import { PassThrough } from 'node:stream';
import { createRuntime, ToolgateError } from 'toolgate';

const io = { stdout: () => {}, stderr: () => {}, stdin: new PassThrough(), isTTY: false, env: process.env, cwd: process.cwd() };
const runtime = await createRuntime({ io, policies: './set', manifests: [] });
try {
  const allowed = await runtime.pipeline.call('echo', { text: 'hello' });
  const denied = await runtime.pipeline.call('echo', { text: 'secret' });
  console.log(JSON.stringify({ allowed, denied, errorBase: typeof ToolgateError }));
} finally {
  await runtime.dispose();
}
`;

/** A TypeScript consumer of both entries; a wrong use must be a type error (the types are not any). */
const CONSUMER = `import { createRuntime, type Runtime, type ToolResult } from 'toolgate';
import { definePolicy, type PolicyContext, type PreExecuteListener } from 'toolgate/policy';

const askAll: PreExecuteListener = (_exec, next) => next();
export const policy = definePolicy({
  name: 'typed',
  apply(ctx: PolicyContext) {
    ctx.on('tools/pre-execute', ctx.entryId, askAll);
  },
});

export async function echo(runtime: Runtime): Promise<ToolResult> {
  const result = await runtime.pipeline.call('echo', { text: 'x' });
  // @ts-expect-error a ToolResult's isError is a boolean
  const wrong: string = result.isError;
  return wrong === '' ? result : result;
}

export const start: typeof createRuntime = createRuntime;
`;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'toolgate-library-'));
  app = join(tmp, 'app');
  mkdirSync(join(app, 'set'), { recursive: true });
  // make test built dist/ just before; --ignore-scripts skips the prepack rebuild.
  const packed = await run(
    'npm',
    ['pack', '--ignore-scripts', '--pack-destination', tmp, '--loglevel=error'],
    ROOT,
    process.env,
    240_000,
  );
  expect(packed.code, packed.stderr).toBe(0);
  const tgz = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
  if (tgz === undefined) throw new Error(`npm pack wrote no tarball: ${packed.stdout}${packed.stderr}`);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'embedder', private: true, type: 'module' }));
  const installed = await run(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', join(tmp, tgz)],
    app,
    process.env,
    400_000,
  );
  expect(installed.code, installed.stderr).toBe(0);
  writeFileSync(join(app, 'set', 'no-secret.mjs'), POLICY);
  writeFileSync(join(app, 'set', 'set.yaml'), 'entries:\n  - { id: no-secret, use: ./no-secret.mjs }\n');
  writeFileSync(join(app, 'embed.mjs'), EMBEDDER);
  writeFileSync(join(app, 'consumer.ts'), CONSUMER);
  const { TOOLGATE_POLICIES: _p, TOOLGATE: _t, TOOLGATE_TEST_CLI: _c, ...rest } = process.env;
  env = { ...rest, TOOLGATE_HOME: join(tmp, 'home') };
}, 600_000);
afterAll(() => {
  if (tmp !== '') rmSync(tmp, { recursive: true, force: true });
});

describe('the installed package imported by name, outside the checkout', () => {
  it("an embedder's createRuntime runs calls through the pipeline, with a policy module that imports toolgate/policy", async () => {
    const r = await run('node', ['embed.mjs'], app, env);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      allowed: { isError: boolean; content: unknown[] };
      denied: { isError: boolean; error?: { code: string; message: string } };
      errorBase: string;
    };
    expect(out.allowed).toMatchObject({ isError: false, content: [{ type: 'text', text: 'hello' }] });
    expect(out.denied).toMatchObject({ isError: true, error: { code: 'GUARD_DENIED' } });
    expect(out.denied.error?.message).toContain('no secrets here');
    expect(out.errorBase).toBe('function');
  });

  it('the installed command loads the same policy module (its import of toolgate/policy resolves to the package)', async () => {
    const bin = join(app, 'node_modules', '.bin', 'toolgate');
    const denied = await run(
      bin,
      ['call', 'echo', '--policies', 'set', '--args', '{"text":"secret"}', '--json'],
      app,
      env,
    );
    expect(denied.code, denied.stderr).toBe(1);
    expect((JSON.parse(denied.stdout) as { error?: { code: string } }).error?.code).toBe('GUARD_DENIED');
    const allowed = await run(bin, ['call', 'echo', '--policies', 'set', '--args', '{"text":"hi"}'], app, env);
    expect(allowed, allowed.stderr).toMatchObject({ code: 0, stdout: 'hi\n' });
  });

  it('only the entries are reachable by name: a file of dist/ is not', async () => {
    const r = await run(
      'node',
      ['--input-type=module', '-e', "await import('toolgate/dist/cli/runtime.js')"],
      app,
      env,
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it('a TypeScript consumer and a JavaScript policy (checkJs) type-check against the shipped .d.ts, and a wrong use does not', async () => {
    const tsconfig = {
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        allowJs: true,
        checkJs: true,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules', '@types')],
      },
      files: ['consumer.ts', 'set/no-secret.mjs'],
    };
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(tsconfig));
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const ok = await run('node', [tsc, '-p', 'tsconfig.json'], app, env, 120_000);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    // Without the package's types every @ts-expect-error above would be unused: the same files
    // fail once the expectation is taken away.
    writeFileSync(join(app, 'consumer.ts'), CONSUMER.replace('// @ts-expect-error a ToolResult', '// a ToolResult'));
    writeFileSync(
      join(app, 'set', 'no-secret.mjs'),
      POLICY.replace('// @ts-expect-error ctx is typed', '// ctx is typed'),
    );
    const bad = await run('node', [tsc, '-p', 'tsconfig.json'], app, env, 120_000);
    expect(bad.code).not.toBe(0);
    expect(bad.stdout).toMatch(/consumer\.ts.*TS2322/);
    expect(bad.stdout).toMatch(/no-secret\.mjs.*TS2339.*allowEverything/);
  }, 120_000);
});
