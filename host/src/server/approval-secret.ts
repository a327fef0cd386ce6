// The per-start approval secret of an HTTP server without a token: the approver credential for
// /v1/approvals. It is written 0600 to $TOOLGATE_HOME/approval-secret (replaced atomically, so no
// reader ever sees a half-written or wider-moded file) and removed on shutdown if still ours.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

export const APPROVAL_SECRET_FILE = 'approval-secret';

export function newApprovalSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Writes the secret; returns the file's path. */
export async function writeApprovalSecret(home: string, secret: string): Promise<string> {
  await mkdir(home, { recursive: true, mode: 0o700 });
  const file = join(home, APPROVAL_SECRET_FILE);
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  // 'wx': never follow or reuse a file someone else placed there; the mode is set at creation.
  const handle = await open(tmp, 'wx', 0o600);
  try {
    await handle.writeFile(`${secret}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await chmod(tmp, 0o600); // a umask can only narrow the mode, but be explicit
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  return file;
}

/** Removes the file only when it still holds `secret` (another server may have replaced it). */
export async function removeApprovalSecret(file: string, secret: string): Promise<void> {
  try {
    if ((await readFile(file, 'utf8')).trim() === secret) await rm(file, { force: true });
  } catch {
    // already gone, or unreadable: nothing of ours to remove
  }
}
