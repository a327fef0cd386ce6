// Shared helpers for the manifest tests: real temp dirs, real files, YAML written from objects.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';

export const BASE = {
  apiVersion: 'toolgate/v1',
  name: 'demo',
  version: '1.0.0',
  description: 'A demo tool.',
  module: { path: 'demo.wasm' },
} as const;

/** The base manifest with top-level keys replaced (undefined deletes a key). */
export function manifestWith(over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...BASE };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

export function yamlOf(obj: unknown): string {
  return stringify(obj);
}

/** A temp dir removed by the returned cleanup. */
export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-manifest-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export async function writeFileIn(dir: string, rel: string, content: string | Uint8Array): Promise<string> {
  const file = join(dir, rel);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, content);
  return file;
}

/** Bytes that stand in for a module where only reading and hashing matter. */
export const FAKE_WASM = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
