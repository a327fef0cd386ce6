// Which policy set is in force, and where it came from (docs/decisions.md, "Policies"): `--policies DIR` >
// $TOOLGATE_POLICIES > $TOOLGATE_HOME/policies > ./policies > the default set shipped inside the
// package. A folder of named sets selects default/ (or --policy-set NAME). No policies at all only
// when asked for: `--policies none`, or an empty folder named with --policies (docs/decisions.md).
// Anything else that finds no set is a configuration error, never "allow everything".
import { readdirSync, statSync, type Dirent } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { toolgateHome } from './home.js';
import { codeOf, messageOf } from '../errors/index.js';
import { packageRoot } from './package-root.js';
import { UsageError } from './usage.js';

export type PolicyOrigin = 'flag' | 'env' | 'home' | 'cwd' | 'builtin';

export type PolicySource =
  | { kind: 'none'; origin: 'flag'; from: string }
  | { kind: 'set'; name: string; dir: string; origin: PolicyOrigin; from: string };

/** What the user chose on the command line. */
export interface PolicyChoice {
  policies?: string | undefined;
  policySet?: string | undefined;
}

/** The flags every command that builds a runtime takes (parseFlags options). */
export const POLICY_FLAGS = {
  policies: { type: 'string' },
  'policy-set': { type: 'string' },
} as const;

/** Help lines for POLICY_FLAGS, descriptions starting at column `width` like the command's others. */
export function policyFlagsHelp(width: number): string {
  const line = (flag: string, text: string) => `  ${flag}`.padEnd(width) + text;
  const more = (text: string) => ' '.repeat(width) + text;
  return [
    line('--policies DIR', 'policy set, or a folder of named sets (default: $TOOLGATE_POLICIES,'),
    more('$TOOLGATE_HOME/policies, ./policies, else the shipped default set);'),
    more("'none' runs with no policies at all (warned on every start)"),
    line('--policy-set NAME', 'which named set of that folder (default: default)'),
  ].join('\n');
}

export function policyChoice(values: {
  policies?: string | undefined;
  'policy-set'?: string | undefined;
}): PolicyChoice {
  return { policies: values.policies, policySet: values['policy-set'] };
}

const EXPECTED =
  'expected a folder of policy YAML files (*.yaml, *.yml) or a folder of named sets (default/, strict/, ...)';
const SET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The line printed on stderr at every start that runs without policies. */
export function noPolicyWarning(source: PolicySource): string | undefined {
  if (source.kind !== 'none') return undefined;
  return `toolgate: WARNING: running with NO policies (${source.from}): every call is allowed, nothing is asked, audited or limited\n`;
}

/** "set default from the built-in default (/path)" — for `policy show` and the serve start line. */
export function describePolicySource(source: PolicySource): string {
  if (source.kind === 'none') return `no policies (${source.from})`;
  return `policy set "${source.name}" from ${source.from}: ${source.dir}`;
}

interface Where {
  cwd: string;
  env: NodeJS.ProcessEnv;
}

interface Candidate {
  origin: PolicyOrigin;
  from: string;
  path: string;
  /** Absent is fine (look further); only the flag and $TOOLGATE_POLICIES must exist. */
  optional: boolean;
}

export function resolvePolicySource(choice: PolicyChoice, where: Where): PolicySource {
  const setName = choice.policySet;
  if (setName !== undefined && !SET_NAME.test(setName)) {
    throw new UsageError(
      `--policy-set "${setName}": a set name is a folder name (letters, digits, ".", "_", "-"), not a path`,
    );
  }
  if (choice.policies === 'none') {
    if (setName !== undefined)
      throw new UsageError('--policies none runs with no policies; it cannot be combined with --policy-set');
    return { kind: 'none', origin: 'flag', from: '--policies none' };
  }
  for (const c of candidates(choice, where)) {
    const entries = listDir(c);
    if (entries === undefined) continue;
    if (entries.length === 0) {
      if (c.origin !== 'flag') {
        throw new UsageError(
          `${c.from}: ${c.path} is empty; ${EXPECTED} (to run with no policies, say --policies none)`,
        );
      }
      // An empty folder named on purpose means "no policies" (the compat runner relies on it).
      if (setName !== undefined)
        throw new UsageError(`${c.from} is an empty folder (no policies); it cannot be combined with --policy-set`);
      return { kind: 'none', origin: 'flag', from: `${c.from} is an empty folder` };
    }
    return pickSet(c, entries, setName);
  }
  throw new Error('unreachable: the built-in default is always a candidate');
}

function candidates(choice: PolicyChoice, { cwd, env }: Where): Candidate[] {
  const list: Candidate[] = [];
  if (choice.policies !== undefined) {
    list.push({
      origin: 'flag',
      from: `--policies ${choice.policies}`,
      path: resolve(cwd, choice.policies),
      optional: false,
    });
  }
  const fromEnv = env.TOOLGATE_POLICIES;
  if (fromEnv !== undefined && fromEnv !== '') {
    list.push({ origin: 'env', from: '$TOOLGATE_POLICIES', path: resolve(cwd, fromEnv), optional: false });
  }
  const home = env.TOOLGATE_HOME;
  const homeLabel = home !== undefined && home !== '' ? '$TOOLGATE_HOME/policies' : '~/.toolgate/policies';
  list.push({
    origin: 'home',
    from: homeLabel,
    path: join(toolgateHome(env, cwd), 'policies'),
    optional: true,
  });
  list.push({ origin: 'cwd', from: './policies', path: resolve(cwd, 'policies'), optional: true });
  list.push({
    origin: 'builtin',
    from: 'the built-in default (shipped with toolgate)',
    path: join(packageRoot(), 'policies'),
    optional: false,
  });
  return list;
}

/** The folder's visible entries; undefined when an optional candidate is absent. */
function listDir(c: Candidate): Dirent[] | undefined {
  let st;
  try {
    st = statSync(c.path);
  } catch (err) {
    if (c.optional && codeOf(err) === 'ENOENT') return undefined;
    if (codeOf(err) === 'ENOENT') throw new UsageError(`${c.from}: directory not found: ${c.path} (${EXPECTED})`);
    throw new UsageError(`${c.from}: cannot read ${c.path}: ${messageOf(err)} (${EXPECTED})`);
  }
  if (!st.isDirectory()) throw new UsageError(`${c.from}: not a directory: ${c.path} (${EXPECTED})`);
  try {
    return readdirSync(c.path, { withFileTypes: true }).filter((d) => !d.name.startsWith('.'));
  } catch (err) {
    throw new UsageError(`${c.from}: cannot read ${c.path}: ${messageOf(err)} (${EXPECTED})`);
  }
}

function isYaml(name: string): boolean {
  return /\.ya?ml$/.test(name);
}

function isDirEntry(parent: string, d: Dirent): boolean {
  if (d.isDirectory()) return true;
  if (!d.isSymbolicLink()) return false;
  try {
    return statSync(join(parent, d.name)).isDirectory();
  } catch {
    return false;
  }
}

function pickSet(c: Candidate, entries: Dirent[], setName: string | undefined): PolicySource {
  if (entries.some((d) => isYaml(d.name) && !isDirEntry(c.path, d))) {
    if (setName !== undefined) {
      throw new UsageError(
        `--policy-set ${setName}: ${c.from} (${c.path}) is a single policy set (it holds YAML files), not a folder of named sets`,
      );
    }
    return { kind: 'set', name: basename(c.path), dir: c.path, origin: c.origin, from: c.from };
  }
  const sets = entries
    .filter((d) => isDirEntry(c.path, d))
    .map((d) => d.name)
    .sort();
  if (sets.length === 0) {
    throw new UsageError(
      `${c.from}: ${c.path} holds no policy YAML files (*.yaml, *.yml) and no named sets; ${EXPECTED}`,
    );
  }
  const name = setName ?? 'default';
  if (!sets.includes(name)) {
    const how = setName === undefined ? '; pick one with --policy-set NAME' : '';
    throw new UsageError(
      `${setName !== undefined ? `--policy-set ${name}` : c.from}: ${c.path} has no set "${name}" (sets: ${sets.join(', ')})${how}`,
    );
  }
  const dir = join(c.path, name);
  const files = listDir({ ...c, path: dir, optional: false }) ?? [];
  if (!files.some((d) => isYaml(d.name))) {
    throw new UsageError(`${c.from}: set "${name}" (${dir}) holds no policy YAML files (*.yaml, *.yml)`);
  }
  // A set asked for by name among the shipped ones is that set, not "the built-in default".
  const from =
    c.origin === 'builtin' && setName !== undefined ? `the built-in set '${name}' (shipped with toolgate)` : c.from;
  return { kind: 'set', name, dir, origin: c.origin, from };
}
