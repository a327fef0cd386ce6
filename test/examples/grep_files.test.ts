// grep_files end to end: it reads the fixture folder shipped in the repo through the read-only
// /data mount its manifest declares, and refuses paths, patterns and limits it cannot honour.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { MANIFESTS, callTool, tempDir, valueOf } from './helpers.js';

interface Match {
  file: string;
  line: number;
  text: string;
}

describe('grep_files (C, WASI files under a read-only mount)', () => {
  it('finds matching lines across the mounted folder, in a stable file order', async () => {
    const v = await valueOf('grep_files', { pattern: 'sandbox' });
    const matches = v.matches as Match[];
    expect(matches.map((m) => `${m.file}:${m.line}`)).toEqual([
      '/data/README.md:4',
      '/data/guides/sandbox.md:1',
      '/data/guides/sandbox.md:3',
      '/data/guides/sandbox.md:4',
      '/data/notes.txt:3',
    ]);
    expect(matches[2]?.text).toBe('Every tool runs in a WebAssembly sandbox.');
    expect(v.files_searched).toBe(4);
    expect(v.truncated).toBe(false);
  });

  it('matches and returns UTF-8 text unchanged', async () => {
    const v = await valueOf('grep_files', { pattern: 'Café|日本語' });
    expect((v.matches as Match[]).map((m) => m.text)).toEqual([
      '- Café order: 3 flat whites, 1 thé vert',
      '- 日本語のテキストも検索できます',
    ]);
  });

  it('narrows to a sub-folder and a file-name glob, and stops at max_results', async () => {
    // policies.md has two lines with "policy" (3 and 4); sandbox.md is left out by the glob.
    const v = await valueOf('grep_files', {
      pattern: 'POLICY',
      path: '/data/guides',
      glob: 'p*.md',
      max_results: 1,
      ignore_case: true,
    });
    expect(v.matches).toEqual([
      { file: '/data/guides/policies.md', line: 3, text: 'A policy may deny a call before it runs.' },
    ]);
    expect(v.truncated).toBe(true);
  });

  it('refuses a path outside its mount before touching the filesystem', async () => {
    const r = await callTool('grep_files', { pattern: 'root', path: '/etc' });
    expect(r.code).toBe(1);
    expect(r.result.error?.message).toContain("argument 'path' must be /data or a path under it");
  });

  it('refuses .. in a path', async () => {
    const r = await callTool('grep_files', { pattern: 'x', path: '/data/../etc' });
    expect(r.code).toBe(1);
    expect(r.result.error?.message).toContain("may not contain '..'");
  });

  it('reports a bad regular expression with the reason', async () => {
    const r = await callTool('grep_files', { pattern: 'a(b' });
    expect(r.code).toBe(1);
    expect(r.result.error?.code).toBe('TOOL_ERROR');
    expect(r.result.error?.message).toContain("argument 'pattern' is not a valid POSIX extended regular expression");
  });

  it('reports a path under the mount that does not exist', async () => {
    const r = await callTool('grep_files', { pattern: 'x', path: '/data/missing' });
    expect(r.code).toBe(1);
    // (the host's sanitizer replaces absolute paths in module messages with <path>)
    expect(r.result.error?.message).toMatch(/^path '.+' does not exist or is not readable$/);
  });
});

describe('grep_files within its memory grant', () => {
  it('searches a 4 MiB file in 160 pages and skips files over the cap and binary files', async () => {
    const { dir, cleanup } = await tempDir('grep');
    try {
      const data = join(dir, 'data');
      await mkdir(data);
      await writeFile(join(data, 'big.txt'), `${'lorem ipsum dolor\n'.repeat(230_000)}needle here\n`); // ~3.9 MiB
      await writeFile(join(data, 'huge.txt'), 'x'.repeat(5 * 1024 * 1024));
      await writeFile(join(data, 'bin.dat'), Buffer.from([0x00, 0x01, 0xff]));
      // The shipped manifest (same max_pages), mounting this folder instead of the fixture.
      const m = parse(await readFile(join(MANIFESTS, 'grep_files.yaml'), 'utf8')) as {
        module: { path: string };
        capabilities: { allowed_paths: Record<string, { host: string; mode: string }> };
      };
      m.module.path = join(MANIFESTS, m.module.path);
      m.capabilities.allowed_paths = { '/data': { host: data, mode: 'ro' } };
      await writeFile(join(dir, 'grep_files.yaml'), stringify(m));
      const v = await valueOf('grep_files', { pattern: 'needle' }, dir);
      expect(v.matches).toEqual([{ file: '/data/big.txt', line: 230_001, text: 'needle here' }]);
      expect(v.files_searched).toBe(1);
      expect(v.files_skipped).toBe(2);
    } finally {
      await cleanup();
    }
  });
});
