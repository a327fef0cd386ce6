// Measures every function of host/src with the TypeScript parser: declarations, methods, accessors,
// constructors, function expressions and arrows, each from its first line (after its doc comment) to
// its closing line. A nested function counts inside its parent too: a parent is as long as it reads.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { SRC } from './imports.js';

export interface FunctionLength {
  /** Path relative to host/src, e.g. `cli/commands/serve.ts`. */
  file: string;
  /** What a reader would call it: `mountPolicies`, `Registry.patch`, `serve.run`, `<arrow>@12`. */
  name: string;
  /** First line of the function, 1-based. */
  line: number;
  lines: number;
  /**
   * Lines on which a statement of the function begins (nested functions included): the length as a
   * reader counts steps, the same whether a long call is written on one line or wrapped over five
   * by the formatter.
   */
  statementLines: number;
}

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield path;
  }
}

const text = (name: ts.PropertyName | ts.BindingName | ts.Identifier, sf: ts.SourceFile): string =>
  ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) ? name.text : name.getText(sf);

/** The name a function goes by: its own, its variable's or property's, prefixed by its class/object. */
function nameOf(node: ts.FunctionLikeDeclaration, sf: ts.SourceFile): string {
  const owner = (n: ts.Node): string | undefined => {
    const parent = n.parent;
    if ((ts.isClassDeclaration(parent) || ts.isClassExpression(parent)) && parent.name) return parent.name.text;
    if (ts.isObjectLiteralExpression(parent)) {
      const holder = parent.parent;
      if (ts.isVariableDeclaration(holder)) return text(holder.name, sf);
      if (ts.isPropertyAssignment(holder)) return text(holder.name, sf);
    }
    return undefined;
  };
  const qualify = (n: ts.Node, name: string): string => {
    const o = owner(n);
    return o === undefined ? name : `${o}.${name}`;
  };
  if (ts.isConstructorDeclaration(node)) return qualify(node, 'constructor');
  if (node.name !== undefined && !ts.isFunctionExpression(node)) return qualify(node, text(node.name, sf));
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent)) return text(parent.name, sf);
  if (ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return qualify(parent, text(parent.name, sf));
  if (node.name !== undefined) return text(node.name, sf);
  const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
  return `<${ts.isArrowFunction(node) ? 'arrow' : 'function'}>@${line + 1}`;
}

/** The distinct lines on which a statement inside `body` begins. */
function statementLinesOf(body: ts.Node, sf: ts.SourceFile): number {
  const lines = new Set<number>();
  const visit = (node: ts.Node): void => {
    const statements =
      ts.isBlock(node) || ts.isCaseClause(node) || ts.isDefaultClause(node) ? node.statements : undefined;
    for (const st of statements ?? []) lines.add(sf.getLineAndCharacterOfPosition(st.getStart(sf)).line);
    ts.forEachChild(node, visit);
  };
  if (!ts.isBlock(body)) lines.add(sf.getLineAndCharacterOfPosition(body.getStart(sf)).line);
  visit(body);
  return lines.size;
}

/** Every function of one source text, with its length in lines. */
export function functionLengths(file: string, source: string): FunctionLength[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = sf.getLineAndCharacterOfPosition(fn.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(fn.getEnd()).line;
      found.push({
        file,
        name: nameOf(fn, sf),
        line: first + 1,
        lines: last - first + 1,
        statementLines: statementLinesOf(fn.body!, sf),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Every function of every file under host/src. */
export function hostFunctionLengths(): FunctionLength[] {
  return [...files(SRC)].flatMap((path) => functionLengths(relative(SRC, path), readFileSync(path, 'utf8')));
}
