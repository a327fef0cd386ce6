// `toolgate verify`: re-checks the whole store (every blob, every installed manifest, every
// signature against the trust store as it is now) and lists each problem by tool and file.
import { readLock } from './lockfile.js';
import { MODULE_FILE } from './package.js';
import { loadPublicKey, signedStatement, verifyPackageSignature } from './signing.js';
import { checkInstalled, strayToolDirs, withStore, type StoreProblem } from './store.js';
import { findTrustedByKeyId } from './trust.js';
import { exists } from './store-txn.js';

export interface VerifyReport {
  tools: number;
  problems: StoreProblem[];
}

export async function verifyStore(home: string): Promise<VerifyReport> {
  if (!(await exists(home))) return { tools: 0, problems: [] }; // reading must not create ~/.toolgate
  return withStore(home, async (layout) => {
    const lock = await readLock(layout.lock);
    const problems: StoreProblem[] = [];
    for (const [name, entry] of Object.entries(lock.tools)) {
      problems.push(...(await checkInstalled(layout, name, entry)));
      if (entry.signer) {
        const key = await findTrustedByKeyId(layout.trust, entry.signer.keyId);
        const statement = signedStatement(name, entry.version, entry.digests);
        if (!key) {
          problems.push({
            tool: name,
            file: layout.trust,
            message: `signer ${entry.signer.name} (${entry.signer.keyId}) is no longer trusted`,
          });
        } else if (
          !verifyPackageSignature(loadPublicKey(key.publicKey, layout.trust), statement, entry.signer.signature)
        ) {
          problems.push({
            tool: name,
            file: layout.lock,
            message: `signature by ${key.name} does not match the pinned digests`,
          });
        }
      }
      if (entry.digests[MODULE_FILE] === undefined)
        problems.push({ tool: name, file: layout.lock, message: 'no module digest pinned' });
    }
    for (const dir of await strayToolDirs(layout, lock)) {
      problems.push({
        tool: dir.split('/').pop() ?? dir,
        file: dir,
        message: 'installed folder is not in the lockfile',
      });
    }
    return { tools: Object.keys(lock.tools).length, problems };
  });
}
