// What is installed, for `toolgate list`: name, version, source, signer and capabilities.
import { readLock } from './lockfile.js';
import { loadInstalled, withStore } from './store.js';
import { exists } from './store-txn.js';
import { messageOf } from '../errors/index.js';
import { ownEntry } from './own.js';

export interface ListedTool {
  name: string;
  version: string;
  source: string;
  signer: string;
  capabilities: string[];
  manifestFile: string;
  /** Set when the tool failed its digest check (it will not load). */
  problem?: string;
}

export async function listInstalled(home: string): Promise<ListedTool[]> {
  if (!(await exists(home))) return []; // reading must not create ~/.toolgate
  return withStore(home, async (layout) => {
    const lock = await readLock(layout.lock);
    const out: ListedTool[] = [];
    for (const name of Object.keys(lock.tools).sort()) {
      const entry = ownEntry(lock.tools, name);
      if (!entry) continue;
      const signer = entry.signer ? `${entry.signer.name} (${entry.signer.keyId})` : 'UNSIGNED';
      try {
        const tool = await loadInstalled(layout, name);
        out.push({
          name,
          version: entry.version,
          source: entry.source,
          signer,
          capabilities: tool.manifest.described,
          manifestFile: tool.manifestFile,
        });
      } catch (err) {
        out.push({
          name,
          version: entry.version,
          source: entry.source,
          signer,
          capabilities: [],
          manifestFile: '',
          problem: messageOf(err),
        });
      }
    }
    return out;
  });
}
