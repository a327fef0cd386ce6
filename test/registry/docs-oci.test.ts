// docs/registry.md's local OCI registry config works as written (issue 23 item 6): Debian's default
// config.yml requires htpasswd auth, which toolgate does not speak, so the docs show one with
// filesystem storage and no auth. Here that block is read from the docs, started as a real
// docker-registry, and published to and installed from by the real `toolgate` command.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWat, removeDir, startRegistry, tempDir, writeToolDir, type OciRegistry } from './helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const MAIN = join(ROOT, 'dist/cli/main.js');

/** The first ```yaml block after the "A local OCI registry" heading of docs/registry.md. */
function documentedConfig(): string {
  const docs = readFileSync(join(ROOT, 'docs/registry.md'), 'utf8');
  const at = docs.indexOf('#### A local OCI registry');
  expect(at).toBeGreaterThan(0);
  const block = /```yaml\n([\s\S]*?)```/.exec(docs.slice(at));
  expect(block?.[1]).toBeDefined();
  return block?.[1] ?? '';
}

let work: string;
let registry: OciRegistry | undefined;

beforeAll(() => {
  work = tempDir('docs-oci');
});
afterAll(async () => {
  await registry?.close();
  removeDir(work);
});

function toolgate(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((done) => {
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: work,
      TOOLGATE_HOME: join(work, 'home'),
      TOOLGATE_LOG_LEVEL: 'silent',
    };
    execFile(process.execPath, [MAIN, ...args], { cwd: work, env }, (err, out, errText) => {
      done({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, out, err: errText });
    });
  });
}

describe("docs/registry.md's local OCI registry", () => {
  it('the config block is valid YAML with filesystem storage, a 127.0.0.1 address and no auth section', () => {
    const config = parseYaml(documentedConfig()) as Record<string, unknown>;
    expect(config).not.toHaveProperty('auth');
    expect(config).toMatchObject({
      storage: { filesystem: { rootdirectory: expect.any(String) } },
      http: { addr: expect.stringMatching(/^127\.0\.0\.1:\d+$/) },
    });
  });

  it('started as documented, it answers /v2/ without credentials and toolgate publishes to and installs from it', async () => {
    registry = await startRegistry(parseYaml(documentedConfig()) as Record<string, unknown>);
    expect((await fetch(`http://${registry.host}/v2/`)).status).toBe(200);
    const dir = writeToolDir(join(work, 'src'), { version: '1.0.0', wasm: buildWat('registry_echo', work) });
    const ref = `oci://${registry.host}/tools/registry_echo:1.0.0`;
    const published = await toolgate(['publish', dir, '--to', ref]);
    expect(published.code, published.err).toBe(0);
    const installed = await toolgate(['install', ref, '--allow-unsigned', '--yes', '--quiet']);
    expect(installed.code, installed.err).toBe(0);
    expect(installed.out).toBe('installed registry_echo@1.0.0\n');
  }, 60_000);
});
