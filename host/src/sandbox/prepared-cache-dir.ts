// Where prepared modules are kept between runs (module/disk-cache.ts), set once by the program that
// embeds the sandbox (the CLI: $TOOLGATE_HOME/cache/prepared). Unset, nothing is read or written.
// A file of its own so that setting it does not load the sandbox's code.

let dir: string | undefined;

/** Turns the on-disk cache of prepared modules on (a folder) or off (undefined). */
export function usePreparedModuleCache(folder: string | undefined): void {
  dir = folder;
}

export function preparedModuleCacheDir(): string | undefined {
  return dir;
}
