// What the /ui page reads from a running `serve --http`: the queue, the served manifests, the
// installed store's lock (signer, pinned digest), the policy set in force and when it was loaded,
// the audit log, and change events. Kept here so serve.ts only mounts the page.
import { homedir } from 'node:os';
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

interface SetSummary {
  entries: { id: string; use: string }[];
  /** Whether an enabled `approvals` entry lists the `queue` channel (the page's and /v1/approvals'). */
  queueInUse: boolean;
}

/** Entry ids and uses of the set in force, read again on every reload. */
async function policySummary(runtime: Runtime): Promise<SetSummary> {
  if (runtime.policySource.kind !== 'set') return { entries: [], queueInUse: false };
  const { parsePolicySet } = await import('../policy/index.js');
  const set = await parsePolicySet(runtime.policySource.dir);
  const enabled = set.entries.filter((e) => !e.disabled);
  const queueInUse = enabled.some((e) => {
    if (e.use !== 'approvals' || typeof e.config !== 'object' || e.config === null) return false;
    const channels = (e.config as { channels?: unknown }).channels;
    return Array.isArray(channels) && channels.includes('queue');
  });
  return { entries: enabled.map((e) => ({ id: e.id, use: e.use })), queueInUse };
}

export async function uiSources(runtime: Runtime, core: SidecarCore, manifests: ManifestTools): Promise<UiSources> {
  const policy: PolicyInfo = {
    description: describePolicySource(runtime.policySource),
    loadedAt: new Date().toISOString(),
    entries: [],
  };
  // Unknown (a set that cannot be read again) counts as in use: the page then warns of nothing.
  let queueInUse = true;
  const summarize = (s: SetSummary): void => {
    policy.entries = s.entries;
    queueInUse = s.queueInUse;
  };
  await policySummary(runtime).then(summarize, () => undefined);
  const events = runtime.policyServices.events;
  // Told after the new set's summary is read, so the page never shows the old entries as new.
  const reread = new Set<() => void>();
  // Kept up to date for the life of the server (the events object lives as long as the runtime).
  events.on('changed', () => {
    policy.loadedAt = new Date().toISOString();
    delete policy.lastRejected; // the refusal was of an older edit; this one loaded
    void policySummary(runtime)
      .then(summarize, () => undefined)
      .then(() => {
        for (const fn of reread) fn();
      });
  });
  events.on('rejected', (e) => {
    policy.lastRejected = { at: new Date().toISOString(), error: e.error };
    for (const fn of reread) fn();
  });
  return {
    queue: core.approvalQueue,
    queueInUse: () => queueInUse,
    manifests: () => manifests.served(),
    installed: () => installedTools(runtime.storeDir),
    builtins: () => {
      const fromManifests = new Set(manifests.names);
      return runtime.tools
        .list()
        .map((t) => t.name)
        .filter((n) => !fromManifests.has(n));
    },
    policy: () => ({ ...policy, entries: [...policy.entries] }),
    auditPath: runtime.policyServices.auditPath,
    onCall: (fn) => runtime.host.root.on('tools/result', 'ui-recent-calls', () => fn()),
    onToolsChanged: (fn) => {
      const offTools = runtime.tools.subscribe(fn);
      reread.add(fn);
      return () => {
        offTools();
        reread.delete(fn);
      };
    },
    assetsDir: join(packageRoot(), 'ui'),
    home: homedir(),
  };
}
