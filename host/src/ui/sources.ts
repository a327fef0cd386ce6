// What the page shows comes from the running server; serve hands these in (kept structural, so
// this folder needs no CLI types).
import type { PendingApprovals, ServedManifest } from '../server/index.js';

/** An installed tool's lock entry, as far as the page shows it. */
export interface InstalledInfo {
  name: string;
  version: string;
  source: string;
  /** "name (keyId)" or "UNSIGNED". */
  signer: string;
  /** The pinned digest of the module (sha256:...), when the lock has one. */
  moduleDigest?: string;
}

export interface PolicyInfo {
  /** e.g. 'policy set "default" from the built-in default: /path'. */
  description: string;
  /** When the set now in force was loaded (ISO time). */
  loadedAt: string;
  /** Enabled entries in order: id and what they use; empty when unknown or none. */
  entries: { id: string; use: string }[];
  /** The last reload that was refused (the old set stayed), if any. */
  lastRejected?: { at: string; error: string };
}

export interface UiSources {
  queue: PendingApprovals | undefined;
  /** Whether the policy set in force sends asks to the queue (else the page cannot answer them). */
  queueInUse?: () => boolean;
  manifests(): ServedManifest[];
  installed(): Promise<InstalledInfo[]>;
  /** Tools served that come from no manifest (built-ins). */
  builtins(): string[];
  policy(): PolicyInfo;
  auditPath: string;
  /** Called after every finished call (the audit tail changed); returns an unsubscribe. */
  onCall(fn: () => void): () => void;
  /** Called when the tool list or the policy set changes; returns an unsubscribe. */
  onToolsChanged(fn: () => void): () => void;
  /** The folder holding the page's files (index.html, login.html, app.js, ui.css). */
  assetsDir: string;
  /** The user's home folder: paths under it are shown as `~/...` (shorter, and no user name on screen). */
  home?: string;
}
