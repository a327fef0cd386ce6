// Files of toolgate's on-disk caches ($TOOLGATE_HOME/cache, architecture.md §5): the prepared
// modules (sandbox) and the parsed manifests (manifest). A leaf: both layers keep a cache, and a
// cache entry is written, sealed and checked the same way for either, at once or, under serve,
// in the quiet turns after its answers (later.ts).
export { openCache, openCacheFolder, type CacheFolder } from './open.js';
export { sealOf, sealMatches } from './seal.js';
export { writeCacheEntry, writeCacheEntriesWhen, cacheEntriesWritten } from './later.js';
