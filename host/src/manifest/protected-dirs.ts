// Folders no mount may contain or enter: $TOOLGATE_HOME holds the approval secret (the approver
// credential of a server without a token), the trust store, the lockfile, the policy set in
// $TOOLGATE_HOME/policies, every installed tool's manifest and module, and the prepared-module
// cache. A tool whose mount covers any of it could answer its own approvals, rewrite the policies
// or another tool's manifest (or its own, to grow its grants without consent), or change how the
// next start sandboxes every tool. Inside it a tool may mount only its own tools/<its name>/data:
// data, never anything toolgate reads back as instructions, and never another tool's data (which
// that tool's consent did not share).
import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve, sep } from 'node:path';

/** A folder toolgate reads instructions from while it runs: the policy set in force, a manifests folder. */
interface ControlDir {
  dir: string;
  what: string;
  /** Its subfolders are read too (a policy set's folders), so a mount inside it is refused as well. */
  deep: boolean;
}
const controlDirs = new Set<ControlDir>();

/**
 * Protects `dir` from rw mounts for as long as it is in use (returns the undo): an rw mount that
 * contains it (or, when `deep`, lies inside it) would let a tool rewrite what toolgate reads back,
 * e.g. turn off the policy that asks for its calls or widen its own manifest, live with --watch.
 */
export function protectControlDir(dir: string, what: string, deep: boolean): () => void {
  const entry: ControlDir = { dir: resolve(dir), what, deep };
  controlDirs.add(entry);
  return () => void controlDirs.delete(entry);
}

/** $TOOLGATE_HOME as the process sees it, through its real path when it exists. */
async function toolgateHome(env: NodeJS.ProcessEnv): Promise<string> {
  const raw = env['TOOLGATE_HOME'];
  const home = resolve(raw !== undefined && raw !== '' ? raw : join(homedir(), '.toolgate'));
  return realpath(home).catch(() => home);
}

/** $TOOLGATE_HOME/cache: prepared modules, parsed manifests and the key that seals them (architecture.md §5). */
export function toolgateCacheDir(home: string): string {
  return join(home, 'cache');
}

const within = (child: string, parent: string): boolean =>
  child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);

/**
 * The tool whose tools/<name>/data holds `mount`, when it lies there: the one place inside
 * $TOOLGATE_HOME a tool may mount, and only its own (architecture.md §5).
 */
function toolDataOwner(mount: string, home: string): string | undefined {
  const tools = join(home, 'tools');
  if (!within(mount, tools) || mount === tools) return undefined;
  const [name, data] = mount.slice(tools.length + 1).split(sep);
  return name !== undefined && name !== '' && data === 'data' ? name : undefined;
}

/** The rule an rw mount of `mount` breaks against the folders in use, or undefined. */
async function controlDirRule(mount: string): Promise<string | undefined> {
  for (const c of controlDirs) {
    const real = await realpath(c.dir).catch(() => c.dir);
    if (within(real, mount) || (c.deep && within(mount, real))) {
      return `${mount} is writable (mode rw) and ${within(real, mount) ? 'contains' : 'is inside'} ${c.what} (${real}), which toolgate reads back; a tool could rewrite it. Mount it read-only, or a folder apart from it`;
    }
  }
  return undefined;
}

/** The rule tool `tool`'s mount of the real directory `mount` breaks, or undefined when it may be mounted. */
export async function protectedDirRule(
  mount: string,
  tool: string,
  env: NodeJS.ProcessEnv = process.env,
  mode: 'ro' | 'rw' = 'ro',
): Promise<string | undefined> {
  if (mode === 'rw') {
    const rule = await controlDirRule(mount);
    if (rule !== undefined) return rule;
  }
  const home = await toolgateHome(env);
  if (within(home, mount)) {
    return `${mount} contains $TOOLGATE_HOME (${home}), which holds the approval secret, the trust store and the installed tools; mount a folder that does not contain it`;
  }
  const cache = toolgateCacheDir(home);
  if (within(mount, cache)) {
    return `${mount} is inside toolgate's cache (${cache}), which holds the prepared modules every tool runs from; mount a folder outside it`;
  }
  const owner = toolDataOwner(mount, home);
  if (within(mount, home) && owner !== tool) {
    if (owner !== undefined) {
      return `${mount} is the data of another tool (${owner}); tool ${tool} may mount only its own ${join(home, 'tools', tool, 'data')}`;
    }
    return `${mount} is inside $TOOLGATE_HOME (${home}), whose policies, installed manifests and modules decide what every tool may do; only the tool's own ${join(home, 'tools', tool, 'data')} may be mounted there`;
  }
  return undefined;
}
