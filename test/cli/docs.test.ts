// docs/cli.md is the CLI's reference: every command it lists must answer --help (exit 0) through
// the built binary, and every command of the table must be listed there.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../host/src/cli/index.js';
import { ROOT, requireBuilt, tg } from './helpers.js';

/** The command words of each `### toolgate WORDS` heading under "## Commands". */
function documented(): string[][] {
  const text = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
  const section = text.slice(text.indexOf('\n## Commands\n'));
  return [...section.matchAll(/^### toolgate (.+)$/gm)].map((m) => (m[1] ?? '').trim().split(/\s+/));
}

beforeAll(requireBuilt);

describe('docs/cli.md', () => {
  it('every command docs/cli.md lists answers --help with exit 0 and its own usage line', {
    timeout: 180_000,
  }, async () => {
    const listed = documented();
    expect(listed.length).toBeGreaterThan(10);
    for (const words of listed) {
      const r = await tg([...words, '--help']);
      expect(r.code, `toolgate ${words.join(' ')} --help: ${r.stderr}`).toBe(0);
      expect(r.stdout).toContain(`Usage: toolgate ${words.join(' ')}`);
    }
  });

  it('every command of the command table is listed in docs/cli.md', () => {
    const listed = new Set(documented().map((w) => w.join(' ')));
    const missing = commands.map((c) => c.path.join(' ')).filter((name) => !listed.has(name));
    expect(missing).toEqual([]);
  });

  it('every flag a command accepts in its help is documented in its docs/cli.md section', async () => {
    const text = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
    for (const entry of commands) {
      const name = entry.path.join(' ');
      const start = text.indexOf(`### toolgate ${name}\n`);
      const end = text.indexOf('\n### ', start + 1);
      const section = text.slice(start, end === -1 ? undefined : end);
      const command = 'load' in entry ? await entry.load() : entry;
      const flags = new Set([...command.help.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)].map((m) => m[0]));
      // --help is everywhere (Conventions); -v/-q are described once under Logs.
      const shared = new Set(['--help', ...(section.includes('-v|-q') ? ['--verbose', '--quiet'] : [])]);
      const undocumented = [...flags].filter((f) => !shared.has(f) && !section.includes(f));
      expect(undocumented, name).toEqual([]);
    }
  });
});
