// Where a command looks for manifests: the files and folders named with --manifests, or by default
// ./manifests and any toolgate manifest lying in the current folder (a `toolgate new` scaffold).
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from './usage.js';

/** Enough of a file to see its apiVersion line near the top. */
const SNIFF_BYTES = 4096;
const TOOLGATE_API = /^apiVersion:\s*["']?toolgate\//m;

function statOf(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** A regular *.yaml/*.yml file that says `apiVersion: toolgate/...`: other YAML (CI files, compose) is not ours. */
function isToolgateManifest(file: string): boolean {
  if (!/\.ya?ml$/i.test(file) || statOf(file)?.isFile() !== true) return false;
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buf = Buffer.alloc(SNIFF_BYTES);
    const n = readSync(fd, buf, 0, SNIFF_BYTES, 0);
    return TOOLGATE_API.test(buf.subarray(0, n).toString('utf8'));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The toolgate manifests directly in `dir`, by name. */
function manifestsIn(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return names.map((n) => join(dir, n)).filter(isToolgateManifest);
}

export interface ManifestSources {
  /** Absolute files and folders, in order. */
  paths: string[];
  /** True when the user named them (then the installed store is not added). */
  explicit: boolean;
}

/** Named paths must exist (a file or a folder); the defaults may be absent. */
export function manifestSources(given: readonly string[], cwd: string): ManifestSources {
  if (given.length > 0) {
    return {
      explicit: true,
      paths: given.map((p) => {
        const path = resolve(cwd, p);
        const info = statOf(path);
        if (info === undefined) throw new UsageError(`--manifests ${p}: no such file or directory: ${path}`);
        if (!info.isDirectory() && !info.isFile())
          throw new UsageError(`--manifests ${p}: not a file or directory: ${path}`);
        return path;
      }),
    };
  }
  const dir = resolve(cwd, 'manifests');
  return {
    explicit: false,
    paths: [...(statOf(dir)?.isDirectory() === true ? [dir] : []), ...manifestsIn(resolve(cwd))],
  };
}
