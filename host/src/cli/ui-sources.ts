// What the /ui page reads from a running `serve --http`: the queue, the served manifests, the
// installed store's lock (signer, pinned digest), the policy set in force and when it was loaded,
// the audit log, and change events. Kept here so serve.ts only mounts the page.
import { join } from 'node:path';
import { readLock, storeLayout } from '../registry/index.js';
import type { ManifestTools, SidecarCore } from '../server/index.js';
import type { InstalledInfo, PolicyInfo, UiSources } from '../ui/index.js';
import { packageRoot } from './package-root.js';
import { describePolicySource } from './policy-source.js';
import type { Runtime } from './runtime.js';

async function installedTools(home: string): Promise<InstalledInfo[]> {
  const lock = await readLock(storeLayout(home).lock).catch(() => undefined);
  if (lock === undefined) return [];
  return Object.entries(lock.tools).map(([name, e]) => {
    const moduleDigest = Object.entries(e.digests).find(([file]) => file.endsWith('.wasm'))?.[1];
    return {
      name,
      version: e.version,
      source: e.source,
      signer: e.signer === null ? 'UNSIGNED (installed with --allow-unsigned)' : `${e.signer.name} (${e.signer.keyId})`,
      ...(moduleDigest !== undefined ? { moduleDigest } : {}),
    };
  });
}

/** Entry ids and uses of the set in force, read again on every reload. */
async function policyEntries(runtime: Runtime): Promise<{ id: string; use: string }[]> {
  if (runtime.policySource.kind !== 'set') return [];
  const { parsePolicySet } = await import('../policy/index.js');
  const set = await parsePolicySet(runtime.policySource.dir);
  return set.entries.filter((e) => !e.disabled).map((e) => ({ id: e.id, use: e.use }));
}

export async function uiSources(runtime: Runtime, core: SidecarCore, manifests: ManifestTools): Promise<UiSources> {
  const policy: PolicyInfo = { description: describePolicySource(runtime.policySource), loadedAt: new Date().toISOString(), entries: [] };
  policy.entries = await policyEntries(runtime).catch(() => []);
  const events = runtime.policyServices.events;
  // Kept up to date for the life of the server (the events object lives as long as the runtime).
  events.on('changed', () => {
    policy.loadedAt = new Date().toISOString();
    void policyEntries(runtime).then((e) => (policy.entries = e), () => undefined);
  });
  events.on('rejected', (e) => (policy.lastRejected = { at: new Date().toISOString(), error: e.error }));
  return {
    queue: core.approvalQueue,
    manifests: () => manifests.served(),
    installed: () => installedTools(runtime.storeDir),
    builtins: () => {
      const fromManifests = new Set(manifests.names);
      return runtime.tools.list().map((t) => t.name).filter((n) => !fromManifests.has(n));
    },
    policy: () => ({ ...policy, entries: [...policy.entries] }),
    auditPath: runtime.policyServices.auditPath,
    onCall: (fn) => runtime.host.root.on('tools/result', 'ui-recent-calls', () => fn()),
    onToolsChanged: (fn) => {
      const offTools = runtime.tools.subscribe(fn);
      const offPolicy = events.on('changed', fn);
      return () => {
        offTools();
        offPolicy();
      };
    },
    assetsDir: join(packageRoot(), 'ui'),
  };
}
