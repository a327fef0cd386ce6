// Where prepared modules are kept between runs (module/disk-cache.ts), set once by the program that
// embeds the sandbox (the CLI: $TOOLGATE_HOME/cache/prepared, with the cache's key). Unset, nothing
// is read or written. A file of its own so that setting it does not load the sandbox's code.
import type { CacheFolder } from '../cache-files/index.js';

let folder: CacheFolder | undefined;

/** Turns the on-disk cache of prepared modules on (an open cache folder) or off (undefined). */
export function usePreparedModuleCache(cache: CacheFolder | undefined): void {
  folder = cache;
}

export function preparedModuleCache(): CacheFolder | undefined {
  return folder;
}
