// The three views' data, as JSON for the page: pending approvals (with what the tool is and may
// touch), recent calls (the audit tail and its verdict) and tools (with the policy set in force).
import type { ServedManifest } from '../server/index.js';
import { auditTail, type AuditVerdict, type AuditVerifier, type RecentCall } from './audit-tail.js';
import type { InstalledInfo, PolicyInfo, UiSources } from './sources.js';

export interface PendingView {
  id: string;
  callId: string;
  tool: string;
  version: string | null;
  signer: string;
  capabilities: string[];
  agent?: string;
  reason: string;
  /** The policy entry that asked. */
  decidedBy: string;
  arguments: unknown;
  createdAt: string;
  expiresAt: string | null;
}

export interface ToolView {
  name: string;
  version: string | null;
  source: string;
  signer: string;
  sha256: string | null;
  pinned: boolean;
  capabilities: string[];
  /** Set when an installed tool is not served (it failed to load). */
  problem?: string;
}

const LOCAL_SIGNER = 'not signed (a local manifest)';

/** `text` with every path under `home` written `~/...`, as shells and file managers show them. */
export function tildePaths(text: string, home: string | undefined): string {
  if (home === undefined || home.length < 2 || !home.startsWith('/')) return text;
  const base = (home.endsWith('/') ? home.slice(0, -1) : home).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // Only a whole path: it starts the text or follows a space, quote, colon or bracket, and the home
  // folder's name ends there (so /home/adam is not /home/ada's).
  return text.replace(new RegExp(`(^|[\\s"'(:=,])${base}(?=/|$|[\\s"'),:])`, 'g'), '$1~');
}

function signerOf(m: ServedManifest | undefined, installed: InstalledInfo | undefined): string {
  if (installed !== undefined) return installed.signer;
  return m === undefined ? 'built in' : LOCAL_SIGNER;
}

type Rec = Record<string, unknown>;
const text = (r: Rec, k: string): string => (typeof r[k] === 'string' ? r[k] : '');

export async function pendingView(src: UiSources): Promise<PendingView[]> {
  const items = (src.queue?.list() ?? []) as Rec[];
  if (items.length === 0) return [];
  const manifests = new Map(src.manifests().map((m) => [m.name, m]));
  const installed = new Map((await src.installed()).map((t) => [t.name, t]));
  return items.map((p) => {
    const tool = text(p, 'tool');
    const m = manifests.get(tool);
    const view: PendingView = {
      id: text(p, 'id'),
      callId: text(p, 'callId'),
      tool,
      version: m?.version ?? null,
      signer: signerOf(m, installed.get(tool)),
      capabilities:
        m?.capabilities ??
        (m === undefined ? ['a built-in tool: runs in toolgate itself, no sandbox limits apply'] : []),
      reason: text(p, 'reason'),
      decidedBy: text(p, 'decidedBy'),
      arguments: p.arguments,
      createdAt: text(p, 'createdAt'),
      expiresAt: typeof p.expiresAt === 'string' ? p.expiresAt : null,
    };
    if (typeof p.agent === 'string') view.agent = p.agent;
    return view;
  });
}

export async function toolsView(
  src: UiSources,
): Promise<{ tools: ToolView[]; policy: PolicyInfo; queueInUse: boolean | null }> {
  const installed = await src.installed();
  const byName = new Map(installed.map((t) => [t.name, t]));
  const served = src.manifests();
  const tools: ToolView[] = served.map((m) => {
    const inst = byName.get(m.name);
    return {
      name: m.name,
      version: m.version,
      source: tildePaths(inst?.source ?? m.file, src.home),
      signer: signerOf(m, inst),
      sha256: m.sha256,
      pinned: m.pinned,
      capabilities: m.capabilities,
    };
  });
  const servedNames = new Set(served.map((m) => m.name));
  for (const t of installed) {
    if (servedNames.has(t.name)) continue;
    tools.push({
      name: t.name,
      version: t.version,
      source: tildePaths(t.source, src.home),
      signer: t.signer,
      sha256: t.moduleDigest ?? null,
      pinned: true,
      capabilities: [],
      problem: 'installed but not served (it failed to load; see the server log)',
    });
  }
  for (const name of src.builtins()) {
    tools.push({
      name,
      version: null,
      source: 'built into toolgate',
      signer: 'built in',
      sha256: null,
      pinned: false,
      capabilities: ['runs in toolgate itself (a built-in tool)'],
    });
  }
  tools.sort((a, b) => a.name.localeCompare(b.name));
  const policy = src.policy();
  const shown: PolicyInfo = { ...policy, description: tildePaths(policy.description, src.home) };
  return { tools, policy: shown, queueInUse: src.queueInUse?.() ?? null };
}

export async function recentView(
  src: UiSources,
  verifier: AuditVerifier,
): Promise<{ calls: RecentCall[]; verify: AuditVerdict; auditPath: string }> {
  const [calls, verify] = await Promise.all([auditTail(src.auditPath), verifier.verdict(src.auditPath)]);
  return { calls, verify, auditPath: tildePaths(src.auditPath, src.home) };
}
