// The manifests of a set of folders, read a few at a time. loadManifestDirs reads them one after
// another (three file-system round trips each), which was about half of a 20-tool server's
// start-up sync; the result here is the same, in the same order.
import { readdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  loadManifestFile,
  ManifestError,
  withoutSharedNames,
  type LoadDirsResult,
  type LoadedManifest,
  type LoadFileOptions,
} from '../manifest/index.js';
import { codeOf, messageOf } from '../errors/index.js';
import { manifestFilesIn } from '../lazy-yaml/index.js';

/** Files read at once: enough to keep libuv's four threads busy, few enough to bound memory. */
const CONCURRENCY = 8;

/** *.yaml / *.yml directly in `dir`, by name, or `dir` itself when it is a file; a missing folder has none. */
async function manifestFiles(dir: string): Promise<{ files: string[]; error?: ManifestError }> {
  try {
    return { files: manifestFilesIn(dir, await readdir(dir, { withFileTypes: true })) };
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return { files: [] };
    // A manifest file named directly (--manifests FILE, or one picked up in the current folder).
    if (codeOf(err) === 'ENOTDIR') return { files: [dir] };
    return {
      files: [],
      error: new ManifestError('READ_FAILED', dir, [
        { path: '', rule: `manifest directory cannot be read: ${messageOf(err)}` },
      ]),
    };
  }
}

/** Runs `fn` over `items` with at most `limit` in flight; results keep the items' order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

type Outcome = { ok: true; loaded: LoadedManifest } | { ok: false; error: ManifestError };

/**
 * loadManifestDirs(dirs, { ignoreMissingDirs: true }) with the files read concurrently: folders
 * in order then file names in order; a bad manifest is reported and skipped; of two manifests
 * naming the same tool neither is kept and each is reported.
 */
export async function scanManifestDirs(dirs: readonly string[], opts: LoadFileOptions = {}): Promise<LoadDirsResult> {
  const listed = await Promise.all(dirs.map((d) => manifestFiles(resolve(d))));
  const files = listed.flatMap((l) => l.files);
  const outcomes = await mapLimited(files, CONCURRENCY, async (file): Promise<Outcome> => {
    try {
      return { ok: true, loaded: await loadManifestFile(file, opts) };
    } catch (err) {
      return {
        ok: false,
        error:
          err instanceof ManifestError
            ? err
            : new ManifestError('READ_FAILED', file, [{ path: '', rule: messageOf(err) }]),
      };
    }
  });
  const manifests: LoadedManifest[] = [];
  const errors: ManifestError[] = [];
  let at = 0;
  for (const l of listed) {
    if (l.error !== undefined) errors.push(l.error);
    for (let k = 0; k < l.files.length; k++, at++) {
      const o = outcomes[at];
      if (o === undefined) continue;
      if (!o.ok) {
        errors.push(o.error);
        continue;
      }
      manifests.push(o.loaded);
    }
  }
  const unshared = withoutSharedNames(manifests);
  return { ...unshared, errors: [...errors, ...unshared.errors] };
}
