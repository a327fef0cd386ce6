// yaml, loaded on the first text parsed or written, once per process. A start on a warm
// $TOOLGATE_HOME takes its manifests from the sealed parse cache and, with no YAML policy file,
// parses no YAML at all, so it should not evaluate yaml's 262 KB (20-46 ms cold; docs/decisions.md
// "yaml off a warm start"). A leaf, so every parser of YAML text loads it the same way
// (docs/architecture.md §2).
import { createRequire } from 'node:module';

// yaml's Node build is CommonJS, so requiring it keeps parsing synchronous. The bundled command
// points YAML_MODULE at yaml bundled into one file beside its chunks (scripts/bundle.mjs): from
// node_modules it is ~70 files to resolve and read.
const YAML_MODULE = 'yaml';
const requireCjs = createRequire(import.meta.url);
let loaded: typeof import('yaml') | undefined;

/** The yaml library, required on first use. */
export function yaml(): typeof import('yaml') {
  loaded ??= requireCjs(YAML_MODULE) as typeof import('yaml');
  return loaded;
}

/**
 * The file yaml is required from, without loading it: bundled, the one-file copy, which the parse
 * cache's key must cover since no chunk name changes with it (manifest/parse-cache.ts).
 */
export function yamlFile(): string {
  return requireCjs.resolve(YAML_MODULE);
}
