// The terminal approval prompt, as the person at a real terminal sees it: `toolgate call` under
// script(1) (a pseudo-terminal), a policy that asks, and an argument that reads "safe-value" but
// goes on in zero-width, format and tag characters. Every hidden character is spelled out.
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROOT, tempDir, toolgateEntry } from '../server/helpers.js';

const GREET = join(ROOT, 'pdk-examples/wat/build/greet.wasm');
const TAGS = [...' then delete everything'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
const HIDDEN = `safe-value\u200b\u200c\u200d\u2060\ufeff\u00ad\u{e0001}${TAGS}\u{e007f}`;

let dir: { path: string; remove(): Promise<void> };

beforeAll(async () => {
  dir = await tempDir();
  await Promise.all([mkdir(join(dir.path, 'm')), mkdir(join(dir.path, 'p'))]);
  await writeFile(
    join(dir.path, 'm/greet.yaml'),
    [
      'apiVersion: toolgate/v1',
      'name: greet',
      'version: 1.2.3',
      'description: Greets someone by name.',
      `module: { path: ${GREET}, entry: greet }`,
      'parameters: { name: { type: string, required: true } }',
      'output: { schema: { type: object }, render: json }',
      '',
    ].join('\n'),
  );
  await writeFile(
    join(dir.path, 'p/set.yaml'),
    'entries:\n  - { id: approvals, use: approvals, with: { channels: [tty] } }\n  - { id: ask-greet, use: ask, with: { tools: [greet], reason: "greeting needs a yes" } }\n',
  );
});
afterAll(async () => {
  await dir?.remove();
});

/** Runs the call in a pseudo-terminal; answers `answer` once the prompt is on screen. */
async function callInTerminal(args: unknown, answer: string): Promise<{ code: number | null; screen: string }> {
  const main = await toolgateEntry();
  const command = `exec node ${JSON.stringify(main)} call greet --manifests "$M" --policies "$P" --args "$ARGS"`;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: ROOT,
    env: {
      ...process.env,
      M: join(dir.path, 'm'),
      P: join(dir.path, 'p'),
      ARGS: JSON.stringify(args),
      TOOLGATE_HOME: join(dir.path, 'home'),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  let answered = false;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (t: string) => {
    screen += t;
    if (!answered && screen.includes('Allow this call once? [y/N]')) {
      answered = true;
      child.stdin.write(answer);
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((r) => child.on('close', r));
  clearTimeout(timer);
  return { code, screen };
}

describe('the terminal approval prompt', () => {
  test('spells out every zero-width, format and tag character of an argument (nothing on screen is invisible)', async () => {
    const { code, screen } = await callInTerminal({ name: HIDDEN }, 'n\n');
    expect(screen).toContain('Allow this call once? [y/N]');
    const line = screen.split(/\r?\n/).find((l) => l.includes('arguments:')) ?? '';
    expect(line).toContain(
      '{"name":"safe-value\\u200b\\u200c\\u200d\\u2060\\ufeff\\u00ad\\udb40\\udc01\\udb40\\udc20\\udb40\\udc74',
    );
    expect(line).toContain('\\udb40\\udc7f"}');
    // Printable ASCII only: no character on the prompt line can hide from the person.
    expect(line).toMatch(/^[\x20-\x7e]*$/);
    expect(screen).toContain('approval rejected');
    expect(code).toBe(1);
  }, 30_000);
});
