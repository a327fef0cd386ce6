// Where things live under $TOOLGATE_HOME (default ~/.toolgate). docs/registry.md has the picture.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { digestHex } from './digest.js';

export interface StoreLayout {
  home: string;
  blobs: string;
  tools: string;
  tmp: string;
  lock: string;
  txn: string;
  trust: string;
  ceiling: string;
  mutex: string;
}

export function resolveHome(env: NodeJS.ProcessEnv): string {
  const fromEnv = env['TOOLGATE_HOME'];
  return resolve(fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(homedir(), '.toolgate'));
}

export function storeLayout(home: string): StoreLayout {
  const h = resolve(home);
  return {
    home: h,
    blobs: join(h, 'blobs', 'sha256'),
    tools: join(h, 'tools'),
    tmp: join(h, 'tmp'),
    lock: join(h, 'toolgate.lock'),
    txn: join(h, 'txn.json'),
    trust: join(h, 'trust.json'),
    ceiling: join(h, 'ceiling.yaml'),
    mutex: join(h, 'store.pid'),
  };
}

/** The folder of installed tools: each tools/<name>/manifest.yaml is a loadable manifest. */
export function installedManifestDir(home: string): string {
  return storeLayout(home).tools;
}

export function blobPath(layout: StoreLayout, digest: string): string {
  return join(layout.blobs, digestHex(digest, 'blob'));
}

/** One thing wrong in the store, by tool and file. */
export interface StoreProblem {
  tool: string;
  file: string;
  message: string;
}
