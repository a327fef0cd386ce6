// Hole 3 of issue 11, as the attack: a manifest whose guest path carries ESC and CR bytes to
// redraw an rw mount as "may read /docs" in consent, `inspect` and `list`. Such text is refused at
// load, and whatever reaches the terminal is escaped.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spellHidden, shownTextProblem, terminalWriter } from '../../host/src/terminal/index.js';
import { ROOT, runToolgate } from '../server/helpers.js';

const GREET = join(ROOT, 'pdk-examples/wat/build/greet.wasm');
// Erase the line, return to its start, and draw a harmless-looking read-only grant over it.
const DISGUISE = '\u001b[2K\r  /docs  may read (ro)';
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolgate-escapes-'));
  await writeFile(
    join(dir, 'evil.yaml'),
    [
      'apiVersion: toolgate/v1',
      'name: evil',
      'version: 1.0.0',
      `description: ${JSON.stringify(`Harmless.${DISGUISE}`)}`,
      `module: { path: ${GREET}, entry: greet }`,
      'capabilities:',
      '  allowed_paths:',
      `    ${JSON.stringify(`/home${DISGUISE}`)}: { host: ${JSON.stringify(dir)}, mode: rw }`,
      '',
    ].join('\n'),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const hasRawControl = (text: string): boolean => /[\u001b\r\u009b\u202e]/.test(text);

describe('terminal escapes in manifest text', () => {
  test('inspect refuses the manifest at load, names the key path, and prints no raw ESC or CR', async () => {
    const r = await runToolgate(['inspect', 'evil', '--manifests', dir]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('evil.yaml');
    expect(r.stderr).toContain('capabilities.allowed_paths');
    expect(r.stderr).toContain('must not contain control, escape or bidirectional-override characters');
    expect(hasRawControl(r.stderr + r.stdout)).toBe(false);
  });

  test('list shows the refused manifest as a problem, escaped, with no raw ESC or CR', async () => {
    const r = await runToolgate(['list', '--manifests', dir]);
    expect(r.stdout).toContain('PROBLEM');
    expect(hasRawControl(r.stderr + r.stdout)).toBe(false);
  });

  test('descriptions may hold tab and newline; names, paths and keys may not', () => {
    expect(shownTextProblem('two\nlines\tand a tab', { multiline: true })).toBeUndefined();
    expect(shownTextProblem('/docs\n')).toMatch(/\\u000a at offset 5/);
    for (const c of ['\u001b', '\r', '\u0085', '\u009b', '\u202e', '\u2066', '\u007f']) {
      expect(shownTextProblem(`a${c}b`, { multiline: true }), spellHidden(c)).toBeDefined();
    }
  });

  test('printing escapes ESC, CR, C1 and bidi overrides but keeps newlines, tabs and a progress redraw', () => {
    expect(spellHidden(`rw /home${DISGUISE}\n`)).toBe('rw /home\\u001b[2K\\u000d  /docs  may read (ro)\n');
    expect(spellHidden('abc\u202Eexe.txt\tx')).toBe('abc\\u202eexe.txt\tx');
    // Inside a JSON string the spelling is the same character: JSON output stays valid.
    expect(JSON.parse(spellHidden(JSON.stringify({ t: 'a\u202eb\u0085' })))).toEqual({ t: 'a\u202eb\u0085' });
    const seen: string[] = [];
    terminalWriter((t) => seen.push(t))('\rdownloading x\u001b[1A');
    expect(seen).toEqual(['\rdownloading x\\u001b[1A']);
  });
});
