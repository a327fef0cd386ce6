// What a tool may touch, in words a person can consent to (install prompts, `toolgate inspect`).
// Every capability is listed, including the absence of network and file access, so a short list
// never hides a grant.
import { KIB, MANIFEST_DEFAULTS, MIB, PAGE_BYTES } from './defaults.js';
import { parseHostPattern } from '../host-grammar/index.js';
import type { Manifest } from './schema.js';
import type { ClientFeature } from '../tool/index.js';

/** What each capabilities.mcp feature lets the tool do, as consent and `inspect` show it. */
const CLIENT_FEATURE_WORDS = {
  logging: 'may send log messages to the MCP client',
  progress: 'may send progress to the MCP client',
  elicitation: "may ask the client's user for input (elicitation)",
  sampling: "may ask the client's model for completions (sampling)",
  roots: 'may ask the client which folders and files it works in (roots)',
  notifications: 'may tell the client its tool, resource or prompt lists or a resource changed',
} as const satisfies Record<ClientFeature, string>;

export function formatBytes(bytes: number): string {
  if (bytes >= MIB && bytes % (MIB / 4) === 0) return `${trim(bytes / MIB)} MiB`;
  if (bytes >= KIB && bytes % KIB === 0) return `${trim(bytes / KIB)} KiB`;
  return `${bytes} bytes`;
}

export function formatDuration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1000) return `${trim(ms / 1000)} s`;
  return `${ms} ms`;
}

function trim(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0+$/, '');
}

/** One host pattern in words; a bare host means the scheme's default port (the sandbox's matching rule). */
export function describeHost(pattern: string): string {
  const parsed = parseHostPattern(pattern);
  if (typeof parsed === 'string') return `may connect to ${pattern}`;
  const host = parsed.host.includes(':') ? `[${parsed.host}]` : parsed.host;
  const who = parsed.kind === 'glob' ? `any subdomain of ${host}` : host;
  const how =
    parsed.port === 'default'
      ? 'https, port 443; http, port 80'
      : parsed.port === 'any'
        ? 'any port'
        : `port ${parsed.port}`;
  return `may connect to ${who} (${how})`;
}

export function describeCapabilities(manifest: Manifest): string[] {
  const caps = manifest.capabilities;
  const lines: string[] = [];
  if (caps.allowed_hosts.length === 0) lines.push('has no network access');
  for (const h of caps.allowed_hosts) lines.push(describeHost(h));
  if (caps.allowed_hosts.length > 0)
    lines.push(`each HTTP response may be up to ${formatBytes(caps.memory.max_http_response_bytes)}`);

  const paths = Object.entries(caps.allowed_paths);
  if (paths.length === 0) lines.push('has no file access');
  for (const [guest, grant] of paths) {
    lines.push(`${grant.mode === 'rw' ? 'may read and write' : 'may read'} ${guest} (host ${grant.host})`);
    if (grant.max_bytes !== undefined)
      lines.push(`may write up to ${formatBytes(grant.max_bytes)} to ${guest} in each call`);
    if (grant.max_entries !== undefined)
      lines.push(`may create up to ${grant.max_entries} files and directories in ${guest} in each call`);
  }

  lines.push(`may use up to ${formatBytes(caps.memory.max_pages * PAGE_BYTES)} of memory`);
  lines.push(`each call may run up to ${formatDuration(caps.timeout_ms)}`);
  lines.push(`each result may be up to ${formatBytes(caps.max_output_bytes)}`);
  lines.push(`accepts arguments up to ${formatBytes(caps.max_input_bytes)}`);
  const pool = manifest.pool?.max ?? MANIFEST_DEFAULTS.poolMax;
  lines.push(`runs at most ${pool} instance${pool === 1 ? '' : 's'} at once`);
  for (const s of caps.secrets) lines.push(`receives secret ${s}`);
  for (const f of caps.mcp) lines.push(CLIENT_FEATURE_WORDS[f]);
  const configKeys = Object.keys(caps.config);
  if (configKeys.length > 0) lines.push(`receives configuration ${configKeys.join(', ')}`);
  lines.push(...describeLinks(manifest));
  return lines;
}

/**
 * The modules of module.link, one line each: they run inside the tool beside the main module, so
 * a person consenting to a tool is told which code that is (by file and, when pinned, digest).
 */
export function describeLinks(manifest: Manifest): string[] {
  return (manifest.module.link ?? []).map(
    (l) =>
      `links module ${l.path}${l.sha256 === undefined ? '' : ` (sha256:${l.sha256})`} for imports from ${JSON.stringify(l.namespace)}`,
  );
}
