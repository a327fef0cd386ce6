// Reads the import graph of host/src as text: every relative `from '...'`, `import '...'` and
// `import('...')`, type-only imports included (a door is a door for types too).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export const SRC = resolve(import.meta.dirname, '../../host/src');

export interface Edge {
  /** Paths relative to host/src, e.g. `cli/main.ts`. */
  from: string;
  to: string;
  typeOnly: boolean;
}

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

const IMPORT =
  /(?:^|[\s;}])(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/gm;

/** Every relative import of every file under host/src. */
export function importGraph(): { files: string[]; edges: Edge[] } {
  const all: string[] = [];
  const edges: Edge[] = [];
  for (const path of files(SRC)) {
    const from = relative(SRC, path);
    all.push(from);
    // comments may quote import lines; drop them first
    const text = readFileSync(path, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[3] ?? m[4];
      // host code imports with NodeNext's explicit .js; anything else is text that quotes an import
      // (the scaffold templates of other languages)
      if (spec === undefined || !spec.endsWith('.js')) continue;
      const target = relative(SRC, resolve(dirname(path), spec)).replace(/\.js$/, '.ts');
      edges.push({ from, to: target, typeOnly: m[2] !== undefined });
    }
  }
  return { files: all, edges };
}

/** The cycles of the file graph: each strongly connected component with more than one file. */
export function cycles(edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    order.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
    }
    if (low.get(v) === order.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of next.keys()) if (!order.has(v)) visit(v);
  return found;
}
