// The difference between two capability sets, in plain words: an upgrade must ask again when what a
// tool may touch grows. (The full list for a first install is the manifest folder's describeCapabilities.)
// One rule per CapabilitySet key, pinned with `satisfies`: a new capability key does not typecheck
// until the diff says how it grows.
import type { CapabilitySet, NumericCapability, PathGrant } from './manifest-adapter.js';

const MIB = 1024 * 1024;

function bytes(n: number): string {
  if (n >= MIB && n % 1024 === 0) return `${(n / MIB).toFixed(n % MIB === 0 ? 0 : 1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(n % 1024 === 0 ? 0 : 1)} KiB`;
  return `${n} bytes`;
}

function pathWords(p: PathGrant): string {
  if (p.mode !== 'rw') return `files: may read host folder ${p.host} (seen by the tool as ${p.guest})`;
  const quota =
    (p.maxBytes === undefined ? '' : `, writing up to ${bytes(p.maxBytes)} per call`) +
    (p.maxEntries === undefined ? '' : `, creating up to ${p.maxEntries} files and directories per call`);
  return `files: may READ AND WRITE host folder ${p.host} (seen by the tool as ${p.guest})${quota}`;
}

/** A config value as shown: JSON-quoted (so control characters stay escaped) and cut short. */
function shown(value: string): string {
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}..."` : text;
}

export interface CapabilityDiff {
  /** True when the new set may touch something the old one could not. */
  grew: boolean;
  /** `+ ...` for new or larger grants, `- ...` for removed or smaller ones. */
  lines: string[];
}

interface Out {
  added(line: string): void;
  removed(line: string): void;
}

type Rule = (before: CapabilitySet, after: CapabilitySet, out: Out) => void;

function numeric(key: NumericCapability, what: string, fmt: (n: number) => string): Rule {
  return (before, after, out) => {
    const a = before[key];
    const b = after[key];
    if (b > a) out.added(`${what}: ${fmt(a)} -> ${fmt(b)}`);
    else if (b < a) out.removed(`${what}: ${fmt(a)} -> ${fmt(b)}`);
  };
}

function quotaChange(
  old: number | undefined,
  now: number | undefined,
  what: string,
  fmt: (n: number) => string,
  out: Out,
): void {
  if (old === undefined || now === undefined || old === now) return;
  const line = `${what}: ${fmt(old)} -> ${fmt(now)}`;
  if (now > old) out.added(line);
  else out.removed(line);
}

function diffPaths(before: CapabilitySet, after: CapabilitySet, out: Out): void {
  const key = (p: PathGrant): string => `${p.guest}\0${p.host}`;
  for (const p of after.paths) {
    const old = before.paths.find((q) => key(q) === key(p));
    if (!old) out.added(pathWords(p));
    else if (old.mode === 'ro' && p.mode === 'rw') out.added(`${pathWords(p)} (was read-only)`);
    else if (old.mode === 'rw' && p.mode === 'ro') out.removed(`write access to ${p.host} (now read-only)`);
    else if (p.mode === 'rw') {
      quotaChange(old.maxBytes, p.maxBytes, `files: writes to ${p.guest} per call`, bytes, out);
      quotaChange(old.maxEntries, p.maxEntries, `files: new files and directories in ${p.guest} per call`, String, out);
    }
  }
  for (const p of before.paths) if (!after.paths.some((q) => key(q) === key(p))) out.removed(pathWords(p));
}

function diffConfig(before: CapabilitySet, after: CapabilitySet, out: Out): void {
  // A config value steers the tool (an endpoint, a mode), so a changed value asks again like a new key.
  for (const [k, v] of Object.entries(after.config)) {
    const old = Object.hasOwn(before.config, k) ? before.config[k] : undefined;
    if (old === undefined) out.added(`config: receives ${k} = ${shown(v)}`);
    else if (old !== v) out.added(`config: ${k} changes from ${shown(old)} to ${shown(v)}`);
  }
  for (const k of Object.keys(before.config)) if (!Object.hasOwn(after.config, k)) out.removed(`config: receives ${k}`);
}

const RULES = {
  hosts: (before, after, out) => {
    for (const h of after.hosts) if (!before.hosts.includes(h)) out.added(`network: may connect to ${h}`);
    for (const h of before.hosts) if (!after.hosts.includes(h)) out.removed(`network: may connect to ${h}`);
  },
  paths: diffPaths,
  maxPages: numeric('maxPages', 'memory', (n) => `${n} pages`),
  maxHttpResponseBytes: numeric('maxHttpResponseBytes', 'http responses', bytes),
  maxVarBytes: numeric('maxVarBytes', 'vars', bytes),
  timeoutMs: numeric('timeoutMs', 'time', (n) => `${n} ms`),
  maxInputBytes: numeric('maxInputBytes', 'input', bytes),
  maxOutputBytes: numeric('maxOutputBytes', 'output', bytes),
  poolMax: numeric('poolMax', 'instances at once (pool.max)', String),
  config: diffConfig,
  secrets: (before, after, out) => {
    for (const s of after.secrets) if (!before.secrets.includes(s)) out.added(`secrets: receives the secret ${s}`);
    for (const s of before.secrets) if (!after.secrets.includes(s)) out.removed(`secrets: receives the secret ${s}`);
  },
  // sets recorded before capabilities.mcp existed have none
  mcp: (before, after, out) => {
    const old = before.mcp ?? [];
    const now = after.mcp ?? [];
    for (const f of now) if (!old.includes(f)) out.added(`mcp client: may use ${f}`);
    for (const f of old) if (!now.includes(f)) out.removed(`mcp client: may use ${f}`);
  },
} satisfies Record<keyof CapabilitySet, Rule>;

export function diffCapabilities(before: CapabilitySet, after: CapabilitySet): CapabilityDiff {
  const lines: string[] = [];
  let grew = false;
  const out: Out = {
    added: (line) => {
      grew = true;
      lines.push(`+ ${line}`);
    },
    removed: (line) => {
      lines.push(`- ${line}`);
    },
  };
  for (const rule of Object.values(RULES) as Rule[]) rule(before, after, out);
  return { grew, lines };
}
