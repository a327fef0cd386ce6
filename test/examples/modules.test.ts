// Static rules for every bundled example: it builds from source with `make examples`, imports only
// what toolgate provides, fits the memory its manifest grants, and its manifest loads cleanly.
import { readFile, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadToolsFromDirs } from '../../host/src/manifest/index.js';
import { MANIFESTS, ROOT, run } from './helpers.js';

const PROVIDED = new Set(['extism:host/env', 'wasi_snapshot_preview1']);

interface ExampleManifest {
  name: string;
  module: { path: string; entry?: string };
  capabilities?: {
    memory?: { max_pages?: number };
    allowed_hosts?: string[];
    allowed_paths?: Record<string, { mode?: string }>;
  };
}

let manifests: { file: string; m: ExampleManifest }[] = [];

beforeAll(async () => {
  const files = (await readdir(MANIFESTS)).filter((f) => f.endsWith('.yaml')).sort();
  manifests = await Promise.all(
    files.map(async (f) => ({ file: f, m: parse(await readFile(join(MANIFESTS, f), 'utf8')) as ExampleManifest })),
  );
}, 300_000);

/** The declared minimum of the module's first memory, in pages (the JS API does not expose it). */
function minPages(bytes: Uint8Array): number {
  let i = 8; // after the magic number and version
  const leb = (): number => {
    let result = 0;
    let shift = 0;
    for (let k = 0; k < 5; k++) {
      const b = bytes[i++] ?? 0;
      result |= (b & 0x7f) << shift;
      shift += 7;
      if ((b & 0x80) === 0) break;
    }
    return result >>> 0;
  };
  while (i < bytes.length) {
    const id = bytes[i++];
    const size = leb();
    if (id === 5) {
      leb(); // number of memories
      leb(); // limits flags
      return leb();
    }
    i += size;
  }
  return 0; // no memory section: the module declares none of its own
}

describe('the bundled example tools', () => {
  it('are at least 8, in all four languages', () => {
    const langs = new Set(manifests.map(({ m }) => m.module.path.split('/')[2]));
    expect(manifests.length).toBeGreaterThanOrEqual(8);
    expect([...langs].sort()).toEqual(['assemblyscript', 'c', 'rust', 'wat']);
  });

  it('rebuild as a no-op, quietly, once built (make targets follow the sources)', async () => {
    const r = await run('make', ['--no-print-directory', '-C', join(ROOT, 'pdk-examples')]);
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toBe('');
  });

  it('import only extism:host/env and wasi_snapshot_preview1, and export their entry', async () => {
    for (const { file, m } of manifests) {
      const bytes = await readFile(resolve(MANIFESTS, m.module.path));
      const mod = await WebAssembly.compile(bytes);
      const foreign = WebAssembly.Module.imports(mod).filter((imp) => !PROVIDED.has(imp.module));
      expect(foreign.map((imp) => `${file}: ${imp.module}.${imp.name}`)).toEqual([]);
      const entry = m.module.entry ?? m.name;
      expect(
        WebAssembly.Module.exports(mod).some((e) => e.kind === 'function' && e.name === entry),
        `${file} exports ${entry}`,
      ).toBe(true);
    }
  });

  it('declare no more memory than their manifest grants', async () => {
    for (const { file, m } of manifests) {
      const bytes = new Uint8Array(await readFile(resolve(MANIFESTS, m.module.path)));
      const min = minPages(bytes);
      const cap = m.capabilities?.memory?.max_pages;
      expect(cap, `${file} sets memory.max_pages`).toBeDefined();
      expect(min, `${file}: module minimum ${min} pages vs max_pages ${cap}`).toBeLessThanOrEqual(cap ?? 0);
    }
  });

  it('ask for no host and no path except fetch_url (hosts) and grep_files (one read-only mount)', () => {
    for (const { m } of manifests) {
      const hosts = m.capabilities?.allowed_hosts ?? [];
      const paths = m.capabilities?.allowed_paths ?? {};
      expect(hosts.length > 0, m.name).toBe(m.name === 'fetch_url');
      if (m.name === 'grep_files') {
        expect(Object.keys(paths)).toEqual(['/data']);
        expect(paths['/data']?.mode).toBe('ro');
      } else {
        expect(paths, m.name).toEqual({});
      }
    }
  });

  it('all load through the manifest loader without an error', async () => {
    const { tools, errors } = await loadToolsFromDirs([MANIFESTS]);
    try {
      expect(errors.map((e) => e.message)).toEqual([]);
      expect(tools.map((t) => t.name).sort()).toEqual(manifests.map(({ m }) => m.name).sort());
    } finally {
      for (const t of tools) await t.dispose?.();
    }
  });
});
