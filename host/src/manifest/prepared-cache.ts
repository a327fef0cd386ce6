// The program's switch for the on-disk caches: $TOOLGATE_HOME/cache/prepared and cache/manifests,
// their entries sealed with $TOOLGATE_HOME/cache/key (architecture.md §5). Mounts inside
// $TOOLGATE_HOME/cache are refused (protected-dirs.ts), so no tool can write there or read the key;
// a cache folder others could write is tightened or, when not ours, not used (cache-files).
import type { Logger } from 'pino';
import { openCache, openCacheFolder } from '../cache-files/index.js';
import { usePreparedModuleCache } from '../sandbox/index.js';
import { useManifestParseCache, type YamlHelper } from './parse-cache.js';
import { toolgateCacheDir } from './protected-dirs.js';

/**
 * Prepared modules and parsed manifests are read from and written to `home`'s cache from now on in
 * this process, when that cache can be trusted; otherwise (warned on `logger`) both caches are off.
 * `yamlHelper`: serve's start-up helper, which reads the manifests' YAML on its own thread (parse-cache.ts).
 */
export async function enablePreparedModuleCache(home: string, logger: Logger, yamlHelper?: YamlHelper): Promise<void> {
  const root = await openCache(toolgateCacheDir(home), (message) => logger.warn(message));
  usePreparedModuleCache(root === undefined ? undefined : await openCacheFolder(root, 'prepared'));
  useManifestParseCache(root === undefined ? undefined : await openCacheFolder(root, 'manifests'), yamlHelper);
}
