// Reads, with the TypeScript parser, what each folder door of host/src exports and which names
// other files import from it: static imports, re-exports, `await import(door)` with the names taken
// from it, and `import('door').Name` in types. A namespace use (`const m = await import(door)`)
// counts as using every name, so the reading errs towards "used", never towards a false failure.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { SRC } from './imports.js';

export const ROOT = resolve(SRC, '../..');

/** Every name one import of a file takes from a target (`*`: all of them). */
export interface NamedImport {
  /** The importing file, relative to the repository root (`host/src/cli/main.ts`, `test/x.test.ts`). */
  from: string;
  /** The imported file, relative to host/src (`policy/index.ts`). */
  to: string;
  names: string[];
}

function* tsFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* tsFiles(path);
    else if (/\.(ts|mts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

const parse = (path: string, source = readFileSync(path, 'utf8')): ts.SourceFile =>
  ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);

const DIST = join(ROOT, 'dist');

/**
 * The host/src file a relative specifier names, or undefined when it names something else. A
 * bench script imports tsc's output (dist/x.js): that is host/src/x.ts.
 */
function target(fromPath: string, spec: string): string | undefined {
  if (!spec.startsWith('.') || !spec.endsWith('.js')) return undefined;
  const path = resolve(dirname(fromPath), spec);
  const to = relative(path.startsWith(`${DIST}/`) ? DIST : SRC, path).replace(/\.js$/, '.ts');
  return to.startsWith('..') ? undefined : to;
}

const hasExport = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** The names a file of host/src exports (following `export *`). */
export function exportedNames(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const sf = parse(join(SRC, file));
  const names: string[] = [];
  for (const st of sf.statements) {
    if (ts.isExportDeclaration(st)) {
      const spec =
        st.moduleSpecifier !== undefined && ts.isStringLiteral(st.moduleSpecifier)
          ? st.moduleSpecifier.text
          : undefined;
      if (st.exportClause === undefined) {
        const to = spec === undefined ? undefined : target(join(SRC, file), spec);
        if (to !== undefined) names.push(...exportedNames(to, seen));
      } else if (ts.isNamedExports(st.exportClause)) names.push(...st.exportClause.elements.map((e) => e.name.text));
      else names.push(st.exportClause.name.text);
    } else if (ts.isExportAssignment(st)) names.push('default');
    else if (hasExport(st)) {
      if (ts.isVariableStatement(st)) {
        for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
      } else if ('name' in st && st.name !== undefined && ts.isIdentifier(st.name as ts.Node))
        names.push((st.name as ts.Identifier).text);
    }
  }
  return [...new Set(names)];
}

/** The names a dynamic `import(door)` takes: `(await import(x)).a`, `const { a } = await import(x)`. */
function dynamicNames(call: ts.CallExpression): string[] {
  let node: ts.Node = call;
  while (ts.isAwaitExpression(node.parent) || ts.isParenthesizedExpression(node.parent)) node = node.parent;
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.expression === node) return [parent.name.text];
  if (ts.isVariableDeclaration(parent) && ts.isObjectBindingPattern(parent.name)) {
    return parent.name.elements.map((e) => (e.propertyName ?? e.name).getText());
  }
  return ['*'];
}

/** Every import of host/src one file makes (its text read from disk unless given), with the names it takes. */
export function importsOf(path: string, source?: string): NamedImport[] {
  const from = relative(ROOT, path);
  const sf = parse(path, source);
  const found: NamedImport[] = [];
  const add = (spec: string, names: string[]): void => {
    const to = target(path, spec);
    if (to !== undefined) found.push({ from, to, names });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const names: string[] = [];
      if (clause?.name !== undefined) names.push('default');
      const bindings = clause?.namedBindings;
      if (bindings !== undefined && ts.isNamespaceImport(bindings)) names.push('*');
      else if (bindings !== undefined) names.push(...bindings.elements.map((e) => (e.propertyName ?? e.name).text));
      add(node.moduleSpecifier.text, names);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const clause = node.exportClause;
      const names =
        clause === undefined || !ts.isNamedExports(clause)
          ? ['*']
          : clause.elements.map((e) => (e.propertyName ?? e.name).text);
      add(node.moduleSpecifier.text, names);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg !== undefined && ts.isStringLiteral(arg)) add(arg.text, dynamicNames(node));
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      const q = node.qualifier;
      const first = q === undefined ? '*' : ts.isIdentifier(q) ? q.text : q.getText().split('.')[0]!;
      add(node.argument.literal.text, [node.isTypeOf && q === undefined ? '*' : first]);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Every import of host/src made by the files under the given folders of the repository. */
export function importsUnder(...dirs: string[]): NamedImport[] {
  return dirs
    .flatMap((d) => (existsSync(join(ROOT, d)) ? [...tsFiles(join(ROOT, d))] : []))
    .flatMap((path) => importsOf(path));
}

/** The top-level folder of a host/src path (`policy/index.ts` -> `policy`). */
export const folderOf = (file: string): string => file.split('/')[0] ?? file;

/** The top-level doors: `<folder>/index.ts` for each folder of host/src. */
export function doors(): string[] {
  return readdirSync(SRC, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(SRC, e.name, 'index.ts')))
    .map((e) => `${e.name}/index.ts`);
}
