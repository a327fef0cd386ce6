// The review of a hyper-mcp plugin (module.abi: hyper-mcp) lists everything its module serves,
// beside the capabilities its manifest grants: each tool by its served name (`<plugin>__<tool>`),
// each resource, resource template and prompt. The module describes itself in the sandbox, under
// the manifest's memory and time limits and with less than it grants (no hosts, mounts, secrets or
// client), through the same loader `serve` uses (manifest/hyper-mcp.ts); nothing is called. A
// module that cannot be described would not be served, so the install is refused.
import { createHash } from 'node:crypto';
import { ManifestError, parseManifest, pluginFromManifest, type LoadedManifest, type LoadedPlugin } from '../manifest/index.js';
import { spellHidden } from '../terminal/index.js';
import type { JsonObject } from '../tool/index.js';
import { RegistryError } from './errors.js';
import { MANIFEST_FILE, MODULE_FILE, type ToolPackage } from './package.js';
import { linkFileName } from './package-modules.js';
import { messageOf } from '../errors/index.js';

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** The package as the loader sees an installed tool, with nothing granted beyond its limits. */
function describeOnly(pkg: ToolPackage, where: string): LoadedManifest {
  const file = `${where}/${MANIFEST_FILE}`;
  const m = parseManifest(pkg.manifestText, file);
  const wasm = pkg.files[MODULE_FILE];
  if (wasm === undefined) throw new RegistryError('BAD_PACKAGE', `${where}: has no ${MODULE_FILE}`);
  const links = pkg.manifest.module.links.map((l, i) => {
    const bytes = pkg.files[linkFileName(i)] ?? new Uint8Array(0);
    return { namespace: l.namespace, path: `${where}/${linkFileName(i)}`, wasm: bytes, sha256: sha(bytes) };
  });
  const capabilities = { ...m.capabilities, allowed_hosts: [], allowed_paths: {}, secrets: [], mcp: [] };
  return { file, manifest: { ...m, capabilities }, modulePath: `${where}/${MODULE_FILE}`, wasm, sha256: sha(wasm), links, allowedPaths: {} };
}

/** One line of text a module wrote, fit for a terminal: hidden characters spelled, one line, bounded. */
function shown(value: unknown, max = 160): string {
  const text = spellHidden(typeof value === 'string' ? value : '').replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const about = (item: JsonObject): string => {
  const d = shown(item['description']);
  return d === '' ? '' : `: ${d}`;
};

function servedLines(p: LoadedPlugin): string[] {
  const lines = p.tools.map((t) => `tool ${t.name}${t.description ? `: ${shown(t.description)}` : ''}`);
  for (const r of p.surface?.resources ?? []) lines.push(`resource ${shown(r['uri'], 300)} (${shown(r['name'])})${about(r)}`);
  for (const t of p.surface?.resourceTemplates ?? []) lines.push(`resource template ${shown(t['uriTemplate'], 300)} (${shown(t['name'])})${about(t)}`);
  for (const pr of p.surface?.prompts ?? []) {
    const args = Array.isArray(pr['arguments']) ? pr['arguments'].map((a) => shown((a as JsonObject)['name'])).join(', ') : '';
    lines.push(`prompt ${shown(pr['name'])}(${args})${about(pr)}`);
  }
  if (p.surface?.operations.complete !== undefined) lines.push('completions for its prompts and resource templates');
  for (const problem of p.problems) lines.push(`refused at load (not served): ${shown(problem.message, 300)}`);
  return lines;
}

/**
 * The review lines of a hyper-mcp package ('' for any other): what the module describes, served
 * as `serve` would serve it. Throws BAD_PACKAGE when the module cannot be described.
 */
export async function pluginReview(pkg: ToolPackage, where: string): Promise<string> {
  if (pkg.manifest.module.abi !== 'hyper-mcp') return '';
  let plugin: LoadedPlugin;
  try {
    plugin = await pluginFromManifest(describeOnly(pkg, where));
  } catch (err) {
    const why = err instanceof ManifestError ? err.message : messageOf(err);
    throw new RegistryError('BAD_PACKAGE', `${pkg.name}@${pkg.version}: its module cannot be described, so it would not be served: ${why}`);
  }
  try {
    const lines = servedLines(plugin);
    const head = `${pkg.name}@${pkg.version} serves (${plugin.interface} interface; described by the module in the sandbox, nothing called):\n`;
    return head + (lines.length === 0 ? '  (nothing)\n' : lines.map((l) => `  ${l}\n`).join(''));
  } finally {
    await plugin.dispose();
  }
}
