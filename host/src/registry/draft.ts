// A manifest drafted for a hyper-mcp plugin that came without one (docs/registry.md, "Installing
// hyper-mcp plugins"; docs/decisions.md, "Drafted manifests grant nothing"). The draft says only
// what the module itself shows, its interface (told by its exports, as the manifest loader tells
// it), and is named after the reference: it grants no hosts, paths, config, secrets or client
// features and keeps the default limits. It is shown to the person before anything is written,
// and a non-interactive install takes it only with --draft-manifest. The same reference and module
// always draft the same text, so `install --locked` re-drafts exactly what the lockfile pins.
import { basename } from 'node:path';
import { hyperMcpInterface, type HyperMcpInterface } from '../manifest/index.js';
import { RegistryError } from './errors.js';
import { parseOciRef } from './oci-ref.js';

/** hyper-mcp plugin names prefix every served tool (`<name>__<tool>`): at most 48 characters, no `__`. */
const MAX_NAME = 48;

/** The reference's repository (last segment) or file name, as a tool name. */
export function draftName(source: string): string {
  const last = source.startsWith('oci://')
    ? (parseOciRef(source).repository.split('/').pop() ?? '')
    : basename(new URL(source, 'file:///').pathname).replace(/\.wasm$/i, '');
  let name = last
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (!/^[a-z]/.test(name)) name = `plugin_${name}`.replace(/_+$/, '');
  return name.slice(0, MAX_NAME).replace(/_+$/, '');
}

/** The tag when it is a version (`1.2.0`, `v1.2.0`), else 0.0.0. */
export function draftVersion(source: string): string {
  if (!source.startsWith('oci://')) return '0.0.0';
  const tag = parseOciRef(source).reference;
  const m = /^v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$/.exec(tag);
  return m?.[1] ?? '0.0.0';
}

export async function moduleInterface(wasm: Uint8Array, where: string): Promise<HyperMcpInterface> {
  let names: string[];
  try {
    names = WebAssembly.Module.exports(await WebAssembly.compile(wasm))
      .filter((e) => e.kind === 'function')
      .map((e) => e.name);
  } catch {
    throw new RegistryError('BAD_PACKAGE', `${where}: the module is not valid WebAssembly`);
  }
  const iface = hyperMcpInterface(names);
  if (iface === undefined) {
    throw new RegistryError(
      'BAD_PACKAGE',
      `${where}: no manifest can be drafted: the module is not a hyper-mcp plugin (it exports neither describe and call nor list_tools, call_tool, ...); pass --manifest FILE`,
    );
  }
  return iface;
}

/** The drafted manifest's text (module.path and module.sha256 are set by the caller). */
export function draftManifestText(source: string, iface: HyperMcpInterface): string {
  return [
    `# Drafted by toolgate install from the module's exports (hyper-mcp ${iface} interface).`,
    '# It grants nothing: no hosts, no paths, no config, no secrets, no MCP client features, and the',
    '# default memory, time and output limits. To grant more, edit a copy and install with --manifest.',
    'apiVersion: toolgate/v1',
    `name: ${draftName(source)}`,
    `version: ${draftVersion(source)}`,
    `description: ${JSON.stringify(`hyper-mcp plugin from ${source}`)}`,
    'module:',
    '  path: module.wasm',
    '  abi: hyper-mcp',
    'capabilities:',
    '  allowed_hosts: []',
    '  allowed_paths: {}',
    '',
  ].join('\n');
}
