// zod's locales out of the command's bundle (docs/decisions.md "zod's locales out of the bundle"):
// scripts/bundle.mjs points zod's `z.locales` re-export at English alone, so a start neither
// compiles nor evaluates ~48 locales nobody reads, and zod's messages stay the English ones.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { removeDir, ROOT, tempDir, tg } from './helpers.js';

const CLI = join(ROOT, 'dist/cli');

/** The command's files (main.js, its chunks and the one-file packages beside them), by name and text. */
function commandFiles(): { file: string; text: string }[] {
  return readdirSync(CLI)
    .filter((f) => /\.(js|cjs)$/.test(f))
    .map((file) => ({ file, text: readFileSync(join(CLI, file), 'utf8') }));
}

describe("zod's locales in the command's bundle", () => {
  test('the bundle holds zod v4 with its English locale and no other locale module', () => {
    const modules = commandFiles().flatMap(({ text }) =>
      [...text.matchAll(/^\/\/ (\S+)$/gm)].map((m) => m[1] as string),
    );
    // zod's door that re-exports the locales, and English, are in it (else this would prove nothing)
    expect(modules).toContain('node_modules/zod/v4/classic/external.js');
    expect(modules).toContain('node_modules/zod/v4/locales/en.js');
    const locales = modules.filter((m) => /\/zod\/v4\/locales\/[^/]+\.js$/.test(m));
    expect(locales.filter((m) => !m.endsWith('/zod/v4/locales/en.js'))).toEqual([]);
  });

  test("no file of the command holds another locale's message text (German, French, Spanish checked)", () => {
    // each locale's wording of "Invalid input: expected ...", as esbuild spells it (\xNN escapes)
    const foreign = [/Ung\\xFCltige Eingabe: erwartet/, /Entr\\xE9e invalide : /, /Entrada inv\\xE1lida: se esperaba/];
    const english = /Invalid input: expected \$\{/;
    const files = commandFiles();
    expect(files.some(({ text }) => english.test(text))).toBe(true);
    for (const pattern of foreign)
      expect(files.filter(({ text }) => pattern.test(text)).map((f) => f.file)).toEqual([]);
  });

  test("a zod issue the shipped command reports reads in zod's English: a policy file's wrong type", async () => {
    const work = tempDir('zod-locales');
    try {
      const policies = join(work, 'policies');
      mkdirSync(policies);
      writeFileSync(join(policies, 'set.yaml'), 'entries:\n  - id: 5\n    use: audit-log\n');
      const ran = await tg(['policy', 'show', '--policies', policies], {
        cwd: work,
        env: { TOOLGATE_HOME: join(work, 'home'), HOME: work },
      });
      expect(ran.code).toBe(2);
      expect(ran.stderr).toContain(
        'entries[0]: id: Invalid input: expected string, received number (line 2, column 9)',
      );
    } finally {
      removeDir(work);
    }
  });
});
