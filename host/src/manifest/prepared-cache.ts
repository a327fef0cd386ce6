// The program's switch for the on-disk cache of prepared modules: $TOOLGATE_HOME/cache/prepared.
// Mounts inside $TOOLGATE_HOME/cache are refused (protected-dirs.ts), so no tool can write there.
import { join } from 'node:path';
import { usePreparedModuleCache } from '../sandbox/index.js';
import { useManifestParseCache } from './parse-cache.js';
import { toolgateCacheDir } from './protected-dirs.js';

/** Prepared modules and parsed manifests are read from and written to `home`'s cache from now on in this process. */
export function enablePreparedModuleCache(home: string): void {
  usePreparedModuleCache(join(toolgateCacheDir(home), 'prepared'));
  useManifestParseCache(join(toolgateCacheDir(home), 'manifests'));
}
