// Folders no mount may contain: $TOOLGATE_HOME holds the approval secret (the approver credential
// of a server without a token), the trust store, the lockfile and every installed tool. A tool
// whose mount covers it could read the secret and answer its own approvals, or rewrite the store.
import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve, sep } from 'node:path';

/** $TOOLGATE_HOME as the process sees it, through its real path when it exists. */
async function toolgateHome(env: NodeJS.ProcessEnv): Promise<string> {
  const raw = env['TOOLGATE_HOME'];
  const home = resolve(raw !== undefined && raw !== '' ? raw : join(homedir(), '.toolgate'));
  return realpath(home).catch(() => home);
}

/** The rule a mount of the real directory `mount` breaks, or undefined when it may be mounted. */
export async function protectedDirRule(mount: string, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const home = await toolgateHome(env);
  const inside = mount === home || home.startsWith(mount.endsWith(sep) ? mount : mount + sep);
  if (!inside) return undefined;
  return `${mount} contains $TOOLGATE_HOME (${home}), which holds the approval secret, the trust store and the installed tools; mount a folder that does not contain it`;
}
