// What the sandbox will refuse of a call's arguments, said before the call runs (for `policy
// explain`): a URL whose host is not in allowed_hosts, an absolute path outside every mount. Only
// the kinds of reach a tool has are judged (a tool with no mounts may well take "/x" as plain text).
import { posix } from 'node:path';
import { matchHost } from '../host-grammar/index.js';
import type { Json, JsonObject, ToolCapabilities } from '../tool/index.js';

const MAX_STRINGS = 10_000;

function stringsOf(value: Json, path: string, out: { path: string; value: string }[]): void {
  if (out.length >= MAX_STRINGS) return;
  if (typeof value === 'string') out.push({ path: path === '' ? '(value)' : path, value });
  else if (Array.isArray(value)) value.forEach((v, i) => stringsOf(v, `${path}[${i}]`, out));
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) stringsOf(v, path === '' ? k : `${path}.${k}`, out);
  }
}

function hostRefusal(value: string, hosts: readonly string[]): string | undefined {
  if (!/^https?:\/\//i.test(value.trim())) return undefined;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return undefined;
  }
  const scheme = url.protocol === 'https:' ? 'https' : 'http';
  const port = url.port === '' ? (scheme === 'https' ? 443 : 80) : Number(url.port);
  if (hosts.some((p) => matchHost(p, url.hostname, port, scheme))) return undefined;
  return `${url.hostname}:${port}, which is not in the tool's allowed_hosts`;
}

function inside(path: string, mount: string): boolean {
  const m = posix.normalize(mount).replace(/\/+$/, '') || '/';
  return m === '/' || path === m || path.startsWith(`${m}/`);
}

function pathRefusal(value: string, mounts: readonly string[]): string | undefined {
  const v = value.trim();
  // An absolute guest path with no spaces or line breaks; anything else is taken as text.
  if (!v.startsWith('/') || v.startsWith('//') || /\s/.test(v)) return undefined;
  const p = posix.normalize(v);
  if (mounts.some((m) => inside(p, m))) return undefined;
  return `${p}, which is outside the tool's mounts (${mounts.join(', ')})`;
}

/** The first argument the sandbox would refuse, with why; undefined when nothing would be. */
export function sandboxRefusal(caps: ToolCapabilities, args: Readonly<JsonObject>): string | undefined {
  const mounts = Object.keys(caps.allowedPaths);
  if (caps.allowedHosts.length === 0 && mounts.length === 0) return undefined;
  const strings: { path: string; value: string }[] = [];
  stringsOf(args as JsonObject, '', strings);
  for (const { path, value } of strings) {
    const why =
      (caps.allowedHosts.length > 0 ? hostRefusal(value, caps.allowedHosts) : undefined) ??
      (mounts.length > 0 ? pathRefusal(value, mounts) : undefined);
    if (why !== undefined) return `the sandbox will refuse argument "${path}": it names ${why}`;
  }
  return undefined;
}
