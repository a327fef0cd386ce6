// Reading a policy set: every *.yaml / *.yml file of a folder, in name order. A file is
// `entries: [ {id, use, with?, disabled?}, ... ]`. Everything is validated before anything mounts;
// an error names the file, the entry (index and id) and the key path.
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Document, LineCounter } from 'yaml';
import { z } from 'zod';
import { BUILTINS } from './builtins/index.js';
import { PolicyConfigError } from './errors.js';
import type { PolicyModule } from './module.js';
import { INJECTABLE, type ServiceName } from './services.js';
import { messageOf } from '../errors/index.js';
import { yaml } from '../lazy-yaml/index.js';

export const ENTRY_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const EntrySchema = z.strictObject({
  id: z.string().regex(ENTRY_ID_RE, 'an id is 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit'),
  use: z.string().min(1),
  with: z.unknown().optional(),
  disabled: z.boolean().optional(),
});
const FileSchema = z.strictObject({ entries: z.array(z.unknown()) });

export interface PolicyEntry {
  readonly id: string;
  readonly use: string;
  readonly file: string;
  readonly index: number;
  readonly disabled: boolean;
  readonly module: PolicyModule<unknown>;
  /** `with`, validated (and default-filled) by the built-in's schema; raw for a module from a path. */
  readonly config: unknown;
}

export interface ParsedSet {
  readonly dir: string;
  readonly files: string[];
  readonly entries: PolicyEntry[];
}

function pathText(path: readonly PropertyKey[]): string {
  let out = '';
  for (const k of path) out += typeof k === 'number' ? `[${k}]` : out === '' ? String(k) : `.${String(k)}`;
  return out;
}

/** Where a key path is in the file: the deepest node of the path that exists there. */
export type Locate = (path: readonly PropertyKey[]) => string;

function locator(doc: Document, lines: LineCounter): Locate {
  return (path) => {
    let node: unknown = doc.contents;
    let found = node;
    for (const key of path) {
      if (!yaml().isCollection(node)) break;
      node = node.get(typeof key === 'symbol' ? String(key) : key, true);
      if (node === undefined) break;
      found = node;
    }
    const range = (found as { range?: [number, number, number] } | null)?.range;
    if (range === undefined) return '';
    const { line, col } = lines.linePos(range[0]);
    return ` (line ${line}, column ${col})`;
  };
}

/** The zod issues (first 5), each with its key path and where that key is in the file. */
function zodProblem(err: z.ZodError, prefix: string, locate?: Locate, base: readonly PropertyKey[] = []): string {
  return err.issues
    .slice(0, 5)
    .map((i) => {
      const keys = [...(prefix === '' ? [] : [prefix]), ...i.path];
      const at = pathText(keys);
      // An unknown key is best shown where it is written, not where its mapping starts.
      const unknown = i.code === 'unrecognized_keys' && i.keys[0] !== undefined ? [i.keys[0]] : [];
      return `${at === '' ? '(top level)' : at}: ${i.message}${locate?.([...base, ...keys, ...unknown]) ?? ''}`;
    })
    .join('; ');
}

/** A `use` that is a path: relative or absolute, or anything ending in a script extension. */
export function isModulePath(use: string): boolean {
  return use.startsWith('./') || use.startsWith('../') || isAbsolute(use) || /\.(m?js|c?js|m?ts|cts)$/.test(use);
}

const moduleCache = new Map<string, PolicyModule<unknown>>();

/** Imports a policy module; an edited file is imported anew (the key carries mtime and size). */
async function importModule(file: string, entryLabel: string, use: string, where = ''): Promise<PolicyModule<unknown>> {
  try {
    return await importModuleAt(file, entryLabel, use);
  } catch (err) {
    if (err instanceof PolicyConfigError && where !== '')
      throw new PolicyConfigError(file, `${err.message.slice(file.length + 2)}${where}`);
    throw err;
  }
}

async function importModuleAt(file: string, entryLabel: string, use: string): Promise<PolicyModule<unknown>> {
  const path = resolve(dirname(file), use);
  const ext = extname(path);
  if (ext === '.ts' || ext === '.mts' || ext === '.cts') {
    throw new PolicyConfigError(
      file,
      `${entryLabel}.use: ${use} is TypeScript; toolgate runs compiled JavaScript — compile it and point "use" at the .js or .mjs file`,
    );
  }
  let st;
  try {
    st = await stat(path);
  } catch {
    throw new PolicyConfigError(file, `${entryLabel}.use: policy module not found: ${path}`);
  }
  const key = `${path}?v=${st.mtimeMs}-${st.size}`;
  const cached = moduleCache.get(key);
  if (cached) return cached;
  let ns: Record<string, unknown>;
  try {
    ns = (await import(`${pathToFileURL(path).href}?v=${st.mtimeMs}-${st.size}`)) as Record<string, unknown>;
  } catch (err) {
    throw new PolicyConfigError(file, `${entryLabel}.use: cannot load ${path}: ${messageOf(err)}`);
  }
  const mod = (typeof ns.apply === 'function' ? ns : ns.default) as Record<string, unknown> | undefined;
  if (typeof mod !== 'object' || mod === null)
    throw new PolicyConfigError(file, `${entryLabel}.use: ${path} exports no policy (name, apply)`);
  if (typeof mod.name !== 'string' || mod.name === '')
    throw new PolicyConfigError(file, `${entryLabel}.use: ${path} must export a non-empty string "name"`);
  if (typeof mod.apply !== 'function')
    throw new PolicyConfigError(file, `${entryLabel}.use: ${path} must export a function "apply(ctx, config)"`);
  const inject = mod.inject ?? [];
  if (
    !Array.isArray(inject) ||
    !inject.every((s): s is ServiceName => typeof s === 'string' && (INJECTABLE as readonly string[]).includes(s))
  ) {
    throw new PolicyConfigError(file, `${entryLabel}.use: ${path}: "inject" must list only ${INJECTABLE.join(', ')}`);
  }
  const apply = mod.apply as PolicyModule<unknown>['apply'];
  const module: PolicyModule<unknown> = { name: mod.name, inject, apply: (ctx, cfg) => apply.call(mod, ctx, cfg) };
  moduleCache.set(key, module);
  return module;
}

interface RawEntry {
  id: string;
  use: string;
  index: number;
  disabled: boolean;
  with: unknown;
}

async function parseFile(file: string): Promise<{ entries: RawEntry[]; locate: Locate }> {
  const text = await readFile(file, 'utf8');
  const { LineCounter, parseDocument } = yaml();
  const lines = new LineCounter();
  // prettyErrors computes each error's line and column (linePos).
  const doc = parseDocument(text, { prettyErrors: true, lineCounter: lines });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const where = e?.linePos?.[0] ? ` (line ${e.linePos[0].line}, column ${e.linePos[0].col})` : '';
    throw new PolicyConfigError(
      file,
      `not valid YAML${where}: ${e?.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '') ?? 'parse error'}`,
    );
  }
  const locate = locator(doc, lines);
  const data: unknown = doc.toJS();
  if (data === null || data === undefined) return { entries: [], locate };
  const top = FileSchema.safeParse(data);
  if (!top.success) {
    throw new PolicyConfigError(
      file,
      `${zodProblem(top.error, '', locate)} (a policy file is a mapping with one key, "entries", holding a list of {id, use, with?, disabled?})`,
    );
  }
  const entries = top.data.entries.map((raw, index) => {
    const label = `entries[${index}]`;
    const parsed = EntrySchema.safeParse(raw);
    if (!parsed.success) {
      const id =
        typeof raw === 'object' && raw !== null && typeof (raw as { id?: unknown }).id === 'string'
          ? ` (id "${(raw as { id: string }).id}")`
          : '';
      throw new PolicyConfigError(file, `${label}${id}: ${zodProblem(parsed.error, '', locate, ['entries', index])}`);
    }
    return {
      id: parsed.data.id,
      use: parsed.data.use,
      index,
      disabled: parsed.data.disabled === true,
      with: parsed.data.with,
    };
  });
  return { entries, locate };
}

/** Reads and validates a whole set; throws PolicyConfigError at the first problem. */
export async function parsePolicySet(dir: string): Promise<ParsedSet> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    throw new PolicyConfigError(dir, `cannot read the policy folder: ${messageOf(err)}`);
  }
  const files = names
    .filter((n) => !n.startsWith('.') && /\.ya?ml$/.test(n))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((n) => join(dir, n));
  const entries: PolicyEntry[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    const { entries: raws, locate } = await parseFile(file);
    for (const e of raws) {
      const raw = e.with;
      const label = `entries[${e.index}] (id "${e.id}")`;
      const first = seen.get(e.id);
      if (first !== undefined)
        throw new PolicyConfigError(
          file,
          `${label}: id "${e.id}" is already used in ${first}; ids are unique across the set${locate(['entries', e.index, 'id'])}`,
        );
      seen.set(e.id, file);
      const builtin = BUILTINS.get(e.use);
      let module: PolicyModule<unknown>;
      let config: unknown = raw;
      if (builtin) {
        module = builtin;
        if (builtin.config) {
          const checked = builtin.config.safeParse(raw);
          if (!checked.success)
            throw new PolicyConfigError(
              file,
              `${label}: ${zodProblem(checked.error, 'with', locate, ['entries', e.index])}`,
            );
          config = checked.data;
        }
      } else if (isModulePath(e.use)) {
        module = await importModule(file, label, e.use, locate(['entries', e.index, 'use']));
        config = raw ?? {};
      } else {
        throw new PolicyConfigError(
          file,
          `${label}.use: unknown policy "${e.use}" (built-ins: ${[...BUILTINS.keys()].join(', ')}; or a path such as ./my-policy.mjs)${locate(['entries', e.index, 'use'])}`,
        );
      }
      entries.push({ id: e.id, use: e.use, file, index: e.index, disabled: e.disabled, module, config });
    }
  }
  return { dir, files, entries };
}
