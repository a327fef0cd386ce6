// The surface on purpose (CONTRIBUTING.md, "Doors and the test door"): a folder's door exports what
// other folders import and nothing more; what tests reach beyond that is listed in test-door.ts; the
// package's own entries (package.json "exports") are host/src/public, with their types.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { doors, exportedNames, folderOf, importsOf, importsUnder, ROOT, type NamedImport } from './exports.js';
import { SRC } from './imports.js';
import { DOOR_NAMES_FOR_TESTS, INNER_FILES_FOR_TESTS } from './test-door.js';

/** The package's entries: public/ is what an embedder or a policy author imports, above every layer. */
const PUBLIC = 'public';

const host = importsUnder('host/src');
const tests = importsUnder('test', 'bench');
const hostFolder = (i: NamedImport): string => folderOf(i.from.replace(/^host\/src\//, ''));
const takes = (imports: readonly NamedImport[], door: string, name: string): boolean =>
  imports.some((i) => i.to === door && (i.names.includes(name) || i.names.includes('*')));

describe('each door exports what other folders use (the test door lists the rest)', () => {
  const checked = doors().filter((d) => folderOf(d) !== PUBLIC);

  it('every name a folder door exports is imported by another folder, or listed in test-door.ts', () => {
    const unused: string[] = [];
    for (const door of checked) {
      const outside = host.filter((i) => hostFolder(i) !== folderOf(door));
      const forTests = DOOR_NAMES_FOR_TESTS.get(door) ?? [];
      for (const name of exportedNames(door)) {
        if (takes(outside, door, name) || forTests.includes(name)) continue;
        unused.push(
          `${door} ${name}: ${takes(tests, door, name) ? 'only tests import it; list it in test-door.ts' : 'nothing outside its folder imports it; drop it from the door'}`,
        );
      }
    }
    expect(unused).toEqual([]);
  });

  it('a name listed for tests is still exported, imported by a test, and by no other folder', () => {
    const stale: string[] = [];
    for (const [door, names] of DOOR_NAMES_FOR_TESTS) {
      const exported = exportedNames(door);
      const outside = host.filter((i) => hostFolder(i) !== folderOf(door));
      for (const name of names) {
        if (!exported.includes(name)) stale.push(`${door} ${name}: no longer exported`);
        else if (takes(outside, door, name))
          stale.push(`${door} ${name}: another folder imports it now; drop it from test-door.ts`);
        else if (!takes(tests, door, name))
          stale.push(`${door} ${name}: no test imports it; drop it from the door and test-door.ts`);
      }
    }
    expect(stale).toEqual([]);
  });

  it('tests and benches enter host/src through a door (an index.ts) or a file listed in test-door.ts', () => {
    const inner = tests.filter((i) => !i.to.endsWith('index.ts') && !INNER_FILES_FOR_TESTS.includes(i.to));
    expect([...new Set(inner.map((i) => `${i.from} -> ${i.to}`))]).toEqual([]);
    const unneeded = INNER_FILES_FOR_TESTS.filter((f) => !tests.some((i) => i.to === f));
    expect(unneeded.map((f) => `${f}: no test imports it; drop it from test-door.ts`)).toEqual([]);
  });

  it('the reader sees what it checks: export *, re-exports, static, dynamic and type imports', () => {
    expect(exportedNames('errors/index.ts')).toEqual(
      expect.arrayContaining(['ToolgateError', 'messageOf', 'ToolgateErrorCode']),
    );
    expect(checked.length).toBeGreaterThan(15);
    const file = join(SRC, 'cli', 'x.ts');
    const source = [
      "import { a, b as c, type D } from '../policy/index.js';",
      "export { e } from '../tool/index.js';",
      "const { f, g: h } = await import('../registry/index.js');",
      "const i = (await import('../manifest/index.js')).loadIt;",
      "const all = await import('../server/index.js');",
      "type T = import('../pipeline/index.js').Pipeline;",
    ].join('\n');
    expect(importsOf(file, source).map((i) => `${i.to} ${i.names.join(',')}`)).toEqual([
      'policy/index.ts a,b,D',
      'tool/index.ts e',
      'registry/index.ts f,g',
      'manifest/index.ts loadIt',
      'server/index.ts *',
      'pipeline/index.ts Pipeline',
    ]);
  });
});

describe("the package's entries are host/src/public, with types tsc writes", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports?: Record<string, unknown>;
    bin?: Record<string, string>;
  };
  const entries = readdirSync(join(SRC, PUBLIC))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.replace(/\.ts$/, ''));

  it('package.json "exports" names each file of public/ (index as ".") with its .d.ts, and nothing else but package.json', () => {
    const want: Record<string, unknown> = { './package.json': './package.json' };
    for (const e of entries)
      want[e === 'index' ? '.' : `./${e}`] = {
        types: `./dist/${PUBLIC}/${e}.d.ts`,
        default: `./dist/${PUBLIC}/${e}.js`,
      };
    expect(entries).toEqual(expect.arrayContaining(['index', 'policy']));
    expect(pkg.exports).toEqual(want);
  });

  it('the command stays the bundle, and the build writes declarations for the entries', () => {
    expect(pkg.bin).toEqual({ toolgate: 'dist/cli/main.js' });
    const build = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as {
      compilerOptions: { declaration?: boolean };
    };
    expect(build.compilerOptions.declaration).toBe(true);
    for (const e of entries) expect(existsSync(join(SRC, PUBLIC, `${e}.ts`))).toBe(true);
  });
});
