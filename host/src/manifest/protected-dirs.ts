// Folders no mount may contain: $TOOLGATE_HOME holds the approval secret (the approver credential
// of a server without a token), the trust store, the lockfile and every installed tool. A tool
// whose mount covers it could read the secret and answer its own approvals, or rewrite the store.
// Folders inside it may be mounted (an installed tool's own data), except its cache: a tool that
// could write the prepared modules there could change how the next start sandboxes every tool.
import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve, sep } from 'node:path';

/** $TOOLGATE_HOME as the process sees it, through its real path when it exists. */
async function toolgateHome(env: NodeJS.ProcessEnv): Promise<string> {
  const raw = env['TOOLGATE_HOME'];
  const home = resolve(raw !== undefined && raw !== '' ? raw : join(homedir(), '.toolgate'));
  return realpath(home).catch(() => home);
}

/** $TOOLGATE_HOME/cache: prepared modules (cache/prepared), read back without patching them again. */
export function toolgateCacheDir(home: string): string {
  return join(home, 'cache');
}

const within = (child: string, parent: string): boolean => child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);

/** The rule a mount of the real directory `mount` breaks, or undefined when it may be mounted. */
export async function protectedDirRule(mount: string, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const home = await toolgateHome(env);
  if (within(home, mount)) {
    return `${mount} contains $TOOLGATE_HOME (${home}), which holds the approval secret, the trust store and the installed tools; mount a folder that does not contain it`;
  }
  const cache = toolgateCacheDir(home);
  if (within(mount, cache)) {
    return `${mount} is inside toolgate's cache (${cache}), which holds the prepared modules every tool runs from; mount a folder outside it`;
  }
  return undefined;
}
