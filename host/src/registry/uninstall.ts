import type { LockEntry } from './lockfile.js';
import { commitUninstall, withStore, type PauseHook } from './store.js';

/** Removes an installed tool (its folder and lockfile entry, then unreferenced blobs), atomically. */
export async function uninstallTool(home: string, name: string, pause?: PauseHook): Promise<LockEntry> {
  return withStore(home, (layout) => commitUninstall(layout, name, pause));
}
