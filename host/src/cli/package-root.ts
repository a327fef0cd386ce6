// Where toolgate itself is installed (the folder holding its package.json), found from this file
// rather than the current folder, so the shipped policy sets and PDK helpers are found by an
// installed `toolgate` run from anywhere, and by the sources under vitest alike.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

function isToolgatePackage(dir: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown };
    return pkg.name === 'toolgate';
  } catch {
    return false;
  }
}

/** The installed package's root: dist/cli/.. /.. in a build, host/src/cli/../../.. in the sources. */
export function packageRoot(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (isToolgatePackage(dir)) return (cached = dir);
    const up = dirname(dir);
    if (up === dir) throw new Error(`toolgate's package.json was not found above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

let version: string | undefined;

/** toolgate's version: package.json's, the one source (what npm installed is what we report). */
export function toolgateVersion(): string {
  if (version !== undefined) return version;
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof pkg.version !== 'string')
    throw new Error(`${join(packageRoot(), 'package.json')}: version: must be a string`);
  return (version = pkg.version);
}
