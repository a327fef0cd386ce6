// Where this command's home is: $TOOLGATE_HOME (relative to the current folder), or ~/.toolgate when
// it is unset or empty. One function, so the runtime, `inspect`, the policy lookup and serve's
// start-up helper (which runs before the command's code loads: this file imports nothing heavy)
// read the same folder.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export function toolgateHome(env: NodeJS.ProcessEnv, cwd: string): string {
  return resolve(cwd, env.TOOLGATE_HOME || join(homedir(), '.toolgate'));
}
