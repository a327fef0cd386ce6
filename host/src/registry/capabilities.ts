// The difference between two capability sets, in plain words: an upgrade must ask again when what a
// tool may touch grows. (The full list for a first install is the manifest folder's describeCapabilities.)
import type { CapabilitySet, PathGrant } from './manifest-adapter.js';

const MIB = 1024 * 1024;

function bytes(n: number): string {
  if (n >= MIB && n % 1024 === 0) return `${(n / MIB).toFixed(n % MIB === 0 ? 0 : 1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(n % 1024 === 0 ? 0 : 1)} KiB`;
  return `${n} bytes`;
}

function pathWords(p: PathGrant): string {
  return p.mode === 'rw'
    ? `files: may READ AND WRITE host folder ${p.host} (seen by the tool as ${p.guest})`
    : `files: may read host folder ${p.host} (seen by the tool as ${p.guest})`;
}

export interface CapabilityDiff {
  /** True when the new set may touch something the old one could not. */
  grew: boolean;
  /** `+ ...` for new or larger grants, `- ...` for removed or smaller ones. */
  lines: string[];
}

export function diffCapabilities(before: CapabilitySet, after: CapabilitySet): CapabilityDiff {
  const lines: string[] = [];
  let grew = false;
  const added = (line: string): void => {
    grew = true;
    lines.push(`+ ${line}`);
  };
  const removed = (line: string): void => {
    lines.push(`- ${line}`);
  };

  for (const h of after.hosts) if (!before.hosts.includes(h)) added(`network: may connect to ${h}`);
  for (const h of before.hosts) if (!after.hosts.includes(h)) removed(`network: may connect to ${h}`);

  const key = (p: PathGrant): string => `${p.guest}\0${p.host}`;
  for (const p of after.paths) {
    const old = before.paths.find((q) => key(q) === key(p));
    if (!old) added(pathWords(p));
    else if (old.mode === 'ro' && p.mode === 'rw') added(`${pathWords(p)} (was read-only)`);
    else if (old.mode === 'rw' && p.mode === 'ro') removed(`write access to ${p.host} (now read-only)`);
  }
  for (const p of before.paths) if (!after.paths.some((q) => key(q) === key(p))) removed(pathWords(p));

  const numbers: Array<[string, number, number, (n: number) => string]> = [
    ['memory', before.maxPages, after.maxPages, (n) => `${n} pages`],
    ['http responses', before.maxHttpResponseBytes, after.maxHttpResponseBytes, bytes],
    ['time', before.timeoutMs, after.timeoutMs, (n) => `${n} ms`],
    ['output', before.maxOutputBytes, after.maxOutputBytes, bytes],
  ];
  for (const [what, a, b, fmt] of numbers) {
    if (b > a) added(`${what}: ${fmt(a)} -> ${fmt(b)}`);
    else if (b < a) removed(`${what}: ${fmt(a)} -> ${fmt(b)}`);
  }

  for (const s of after.secrets) if (!before.secrets.includes(s)) added(`secrets: receives the secret ${s}`);
  for (const s of before.secrets) if (!after.secrets.includes(s)) removed(`secrets: receives the secret ${s}`);
  return { grew, lines };
}
