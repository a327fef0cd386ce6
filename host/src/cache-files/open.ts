// Opening the cache: its folders and its key, or no cache at all. Every entry is sealed with a key
// kept beside them ($TOOLGATE_HOME/cache/key, 32 random bytes, 0600), so only this user's toolgate
// can write an entry it will read back (seal.ts). That holds only while no one else can write the
// folders or read the key: a folder or key file others could write (group or other bits, or owned
// by another user) is tightened to 0700 / replaced when it is ours, and the cache is not used when
// it is not. A folder that cannot be made at all is skipped without a word: a cache only saves time.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, link, lstat, mkdir, open, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/** The cache folder of a home, checked, with the key that seals its entries. */
export interface CacheRoot {
  readonly dir: string;
  readonly secret: Uint8Array;
  readonly warn: (message: string) => void;
}

/** One folder of entries (prepared modules, parsed manifests) and the key that seals them. */
export interface CacheFolder {
  readonly dir: string;
  readonly secret: Uint8Array;
}

const KEY_FILE = 'key';
const KEY_BYTES = 32;
/** Group and other bits: none may be set on a folder or the key (the key is a secret too). */
const OTHERS = 0o077;
const OTHERS_WRITE = 0o022;

const myUid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/**
 * `dir` made (0700) or checked: a folder of ours with no group or other bits, tightened when it had
 * some. Undefined when it cannot be made, is not a folder, or is another user's (warned).
 */
async function ownFolder(dir: string, warn: (message: string) => void): Promise<string | undefined> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // lstat: a symlink planted in place of a folder is not followed
    const st = await lstat(dir);
    if (!st.isDirectory()) return undefined;
    const uid = myUid();
    if (uid !== undefined && st.uid !== uid) {
      warn(
        `toolgate's cache folder ${dir} belongs to another user (uid ${st.uid}), who could plant entries in it; running without the cache`,
      );
      return undefined;
    }
    if (process.platform !== 'win32' && (st.mode & OTHERS) !== 0) {
      if ((st.mode & OTHERS_WRITE) !== 0)
        warn(
          `toolgate's cache folder ${dir} was writable by others (mode ${(st.mode & 0o777).toString(8)}); tightened to 0700`,
        );
      await chmod(dir, 0o700);
    }
    return dir;
  } catch {
    return undefined;
  }
}

/** The key in `file` when it is a regular file of ours, 0600 or tighter, of the right size. */
async function readKey(file: string): Promise<{ secret?: Uint8Array; unsafe?: string }> {
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? {} : { unsafe: `it cannot be opened (${code ?? 'error'})` };
  }
  try {
    const st = await handle.stat();
    const uid = myUid();
    if (!st.isFile()) return { unsafe: 'it is not a regular file' };
    if (uid !== undefined && st.uid !== uid) return { unsafe: `it belongs to another user (uid ${st.uid})` };
    if (process.platform !== 'win32' && (st.mode & OTHERS) !== 0)
      return { unsafe: `others could read or write it (mode ${(st.mode & 0o777).toString(8)})` };
    const secret = Buffer.alloc(KEY_BYTES);
    const { bytesRead } = await handle.read(secret, 0, KEY_BYTES, 0);
    if (bytesRead !== KEY_BYTES || st.size !== KEY_BYTES) return { unsafe: `it is ${st.size} bytes, not ${KEY_BYTES}` };
    return { secret };
  } finally {
    await handle.close();
  }
}

/** A fresh key, written whole to a temporary name, then put at `file`: linked when absent, renamed over when replacing. */
async function newKey(dir: string, file: string, replace: boolean): Promise<void> {
  const tmp = join(dir, `.${KEY_FILE}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, randomBytes(KEY_BYTES), { mode: 0o600, flag: 'wx' });
    // link fails when another start made the key first: both then read the one that is there
    if (replace) await rename(tmp, file);
    else
      await link(tmp, file).catch((err: unknown) => {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      });
  } finally {
    await rm(tmp, { force: true }).catch(() => {});
  }
}

/**
 * The cache at `dir` ($TOOLGATE_HOME/cache) with its key, made on first use; undefined when it
 * cannot be used (the cache is then off and every load prepares and parses afresh).
 */
export async function openCache(dir: string, warn: (message: string) => void): Promise<CacheRoot | undefined> {
  if ((await ownFolder(dir, warn)) === undefined) return undefined;
  const file = join(dir, KEY_FILE);
  try {
    let key = await readKey(file);
    if (key.secret === undefined) {
      if (key.unsafe !== undefined)
        warn(
          `toolgate's cache key ${file} was not safe (${key.unsafe}); replaced by a new key, so every cache entry is rebuilt`,
        );
      await newKey(dir, file, key.unsafe !== undefined);
      key = await readKey(file);
    }
    if (key.secret === undefined) {
      warn(
        `toolgate's cache key ${file} could not be made safe (${key.unsafe ?? 'absent'}); running without the cache`,
      );
      return undefined;
    }
    return { dir, secret: key.secret, warn };
  } catch {
    return undefined;
  }
}

/** The folder `name` of an open cache, made or checked like the cache folder itself. */
export async function openCacheFolder(root: CacheRoot, name: string): Promise<CacheFolder | undefined> {
  const dir = await ownFolder(join(root.dir, name), root.warn);
  return dir === undefined ? undefined : { dir, secret: root.secret };
}
