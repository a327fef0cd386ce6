// The repository explains itself: a person who clones it can read every document its code and
// docs cite. Comments cite docs/architecture.md by section ("architecture.md §4", "§8.3") or the
// other pages of docs/; notes kept outside the repository are never cited.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SCANNED = ['host', 'test', 'bench', 'scripts', 'docs', 'pdk-examples', 'policies', 'manifests', 'ui'];
const TEXT = /\.(ts|mjs|js|md|yaml|yml|c|h|rs|wat|html|css)$|Makefile$/;
// Names of design notes that live outside the repository (spelled in parts so this file does not match itself).
const OUTSIDE = new RegExp(
  `\\b(${['DES', 'IGN'].join('')}(\\.md| §)|${['FIND', 'INGS'].join('')}(\\.md| \\d)|${['STY', 'LE'].join('')}\\.md)`,
);

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'build' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (TEXT.test(entry.name)) yield path;
  }
}

function lines(): { where: string; text: string }[] {
  const out: { where: string; text: string }[] = [];
  for (const top of [
    ...SCANNED.map((d) => join(ROOT, d)),
    join(ROOT, 'README.md'),
    join(ROOT, 'CONTRIBUTING.md'),
    join(ROOT, 'Makefile'),
  ]) {
    const list = top.endsWith('.md') || top.endsWith('Makefile') ? [top] : [...files(top)];
    for (const file of list) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((text, i) => out.push({ where: `${relative(ROOT, file)}:${i + 1}`, text }));
    }
  }
  return out;
}

const architecture = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
const sections = new Set([...architecture.matchAll(/^## (\d+)\./gm)].map((m) => m[1]));
const section8 = architecture.slice(architecture.indexOf('## 8.'));
const items8 = new Set([...section8.matchAll(/^(\d+)\. /gm)].map((m) => m[1]));
/** Subsections ("### 3.3 The deadline walk") may be cited as §3.3. */
const subsections = new Set([...architecture.matchAll(/^### (\d+\.\d+) /gm)].map((m) => m[1]));

describe('citations stay inside the repository', () => {
  const all = lines();

  it('no file cites a design note kept outside the repository', () => {
    expect(all.filter((l) => OUTSIDE.test(l.text)).map((l) => `${l.where}: ${l.text.trim()}`)).toEqual([]);
  });

  it('every "architecture.md §N" names a section that exists, every "§8.N" an item of it, and any other "§N.M" a subsection', () => {
    const bad: string[] = [];
    for (const l of all) {
      for (const m of l.text.matchAll(/architecture\.md §(\d+)(?:\.(\d+))?/g)) {
        const [, sec, item] = m;
        if (!sections.has(sec!)) bad.push(`${l.where}: no section ${sec}`);
        else if (item !== undefined && !(sec === '8' ? items8.has(item) : subsections.has(`${sec}.${item}`)))
          bad.push(`${l.where}: no item §${sec}.${item}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('the checks see what they check (a known citation is found, and the outside pattern matches)', () => {
    expect(all.some((l) => /architecture\.md §8\.\d/.test(l.text))).toBe(true);
    expect(OUTSIDE.test(`see ${['DES', 'IGN'].join('')}.md`)).toBe(true);
    expect(sections.has('4') && items8.has('3') && subsections.has('3.3')).toBe(true);
  });
});

describe('the layout is written down where a newcomer looks', () => {
  const folders = readdirSync(join(ROOT, 'host', 'src'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const layout = readme.slice(readme.indexOf('## Layout'));

  it("the README's layout and architecture.md's layer table name every folder of host/src", () => {
    expect(folders.length).toBeGreaterThan(10);
    expect(folders.filter((f) => !layout.includes(`\`${f}\``))).toEqual([]);
    const table = architecture.slice(architecture.indexOf('## 2.'), architecture.indexOf('## 3.'));
    expect(folders.filter((f) => !table.includes(`\`${f}\``))).toEqual([]);
  });
});

describe('CONTRIBUTING.md recipes name files that exist', () => {
  const text = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8');
  const paths = [...text.matchAll(/`((?:host|test|pdk-examples|docs|policies)\/[^`<>*\s]+)`/g)].map((m) => m[1]!);

  it('every path a recipe names is a file or folder of the repository', () => {
    expect(paths.length).toBeGreaterThan(20);
    expect(paths.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });

  const recipes = text.slice(text.indexOf('## Recipes'));
  const sections = recipes.split(/^### /m).slice(1);

  it('the common changes each have a recipe that ends with the test to add', () => {
    const titles = sections.map((s) => s.split('\n')[0]!);
    for (const want of [/host function/, /built-in policy/, /content kind/, /CLI command/, /manifest key/]) {
      expect(
        titles.filter((t) => want.test(t)),
        String(want),
      ).toHaveLength(1);
    }
    expect(sections.filter((s) => !/^Test: /m.test(s)).map((s) => s.split('\n')[0])).toEqual([]);
  });

  it('a name a recipe step gives after a file (`file`: ... `Name`) is in that file', () => {
    const missing: string[] = [];
    const isFile = (t: string): boolean => /^(host|test|pdk-examples)\/[^\s<>*]+\.\w+$/.test(t);
    const holds = (file: string | undefined, name: string): boolean =>
      file !== undefined && readFileSync(join(ROOT, file), 'utf8').includes(name);
    for (const step of recipes.split(/\n(?=\d+\. |Test: |### )/)) {
      const tokens = [...step.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
      tokens.forEach((token, i) => {
        if (isFile(token) || !/^[A-Za-z_][A-Za-z0-9_]{2,}$/.test(token)) return;
        // the name belongs to the file before it (`file`: its `Name`) or after it (`Name` in `file`)
        const before = tokens.slice(0, i).reverse().find(isFile);
        const after = tokens.slice(i + 1).find(isFile);
        if (before === undefined && after === undefined) return;
        if (!holds(before, token) && !holds(after, token)) missing.push(`${before ?? after}: ${token}`);
      });
    }
    expect(missing).toEqual([]);
  });
});
