// What modules serve besides tools (module.abi: hyper-mcp v2): resources, resource templates,
// prompts and completions, gathered from the registry's surfaces for both MCP revisions and the
// HTTP API. Lists come from what each module described at load; every read, get and complete is a
// pipeline call of the owning plugin's operation (`<plugin>__resources__read`,
// `<plugin>__prompts__get`, `<plugin>__completion__complete`), so deny-tools, ask, rate limits and
// the audit log cover it by that name (docs/mcp.md, "Resources, prompts and completions").
import type { JsonObject, ServedItem, ServedSurface, ToolResult } from '../tool/index.js';
import { templateMatches } from '../manifest/index.js';
import type { SidecarCore } from './core.js';
import { RpcError } from './rpc-error.js';

const surfaces = (core: SidecarCore): ServedSurface[] => core.tools.surfaces();

/** Items of every surface, the first plugin's kept when two serve the same key (a URI, a name). */
function gather(core: SidecarCore, pick: (s: ServedSurface) => readonly ServedItem[], key: string): ServedItem[] {
  const seen = new Set<string>();
  const out: ServedItem[] = [];
  for (const s of surfaces(core)) {
    for (const item of pick(s)) {
      const k = String(item[key]);
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(item);
    }
  }
  return out;
}

export const listResources = (core: SidecarCore): ServedItem[] => gather(core, (s) => s.resources, 'uri');
export const listResourceTemplates = (core: SidecarCore): ServedItem[] =>
  gather(core, (s) => s.resourceTemplates, 'uriTemplate');
export const listPrompts = (core: SidecarCore): ServedItem[] => gather(core, (s) => s.prompts, 'name');

/** Whether any loaded module serves resources / prompts / completions (capabilities follow). */
export function surfaceKinds(core: SidecarCore): { resources: boolean; prompts: boolean; completions: boolean } {
  const all = surfaces(core);
  return {
    resources: all.some((s) => s.operations.read !== undefined),
    prompts: all.some((s) => s.operations.get !== undefined),
    completions: all.some((s) => s.operations.complete !== undefined),
  };
}

/** The operation that reads `uri`: the plugin that listed it, else the first whose template matches. */
export function readOperationFor(core: SidecarCore, uri: string): string | undefined {
  for (const s of surfaces(core))
    if (s.operations.read !== undefined && s.resources.some((r) => r['uri'] === uri)) return s.operations.read;
  for (const s of surfaces(core)) {
    if (
      s.operations.read !== undefined &&
      s.resourceTemplates.some((t) => templateMatches(String(t['uriTemplate']), uri))
    )
      return s.operations.read;
  }
  return undefined;
}

export function promptOperationFor(core: SidecarCore, name: string): string | undefined {
  for (const s of surfaces(core))
    if (s.operations.get !== undefined && s.prompts.some((p) => p['name'] === name)) return s.operations.get;
  return undefined;
}

/** The plugin serving the prompt or template a completion refers to; else the only one that completes. */
export function completeOperationFor(core: SidecarCore, ref: Record<string, unknown>): string | undefined {
  const completing = surfaces(core).filter((s) => s.operations.complete !== undefined);
  const owner =
    ref['type'] === 'ref/prompt'
      ? completing.find((s) => s.prompts.some((p) => p['name'] === ref['name']))
      : completing.find((s) =>
          s.resourceTemplates.some(
            (t) => t['uriTemplate'] === ref['uri'] || templateMatches(String(t['uriTemplate']), String(ref['uri'])),
          ),
        );
  return owner?.operations.complete;
}

/**
 * The protocol result of an operation call: the module's validated result (the pipeline's
 * structuredContent). A failure (a policy's denial, the module's error) is a JSON-RPC error
 * naming toolgate's code, since these methods have no isError result.
 */
export function operationResult(result: ToolResult): Record<string, unknown> {
  if (result.isError) {
    const code = result.error?.code ?? 'TOOL_ERROR';
    throw new RpcError(
      code === 'INVALID_ARGS' ? -32602 : -32000,
      `${code}: ${result.error?.message ?? 'the operation failed'}`,
    );
  }
  const value = result.structuredContent;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new RpcError(-32603, 'the module returned no result');
  return { ...(value as JsonObject) };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** prompts/get params: name and string arguments. */
export function promptParams(params: unknown): { name: string; args: JsonObject } {
  if (!isObject(params) || typeof params['name'] !== 'string')
    throw new RpcError(-32602, 'prompts/get: params.name must be a string');
  const a = params['arguments'];
  if (a !== undefined && !isObject(a)) throw new RpcError(-32602, 'prompts/get: params.arguments must be an object');
  return {
    name: params['name'],
    args: { name: params['name'], ...(a !== undefined ? { arguments: a as JsonObject } : {}) },
  };
}

/** completion/complete params, passed on as the operation's arguments. */
export function completeParams(params: unknown): { ref: Record<string, unknown>; args: JsonObject } {
  if (!isObject(params) || !isObject(params['ref']) || !isObject(params['argument']))
    throw new RpcError(-32602, 'completion/complete: params.ref and params.argument must be objects');
  const args: JsonObject = { ref: params['ref'] as JsonObject, argument: params['argument'] as JsonObject };
  if (isObject(params['context'])) args['context'] = params['context'] as JsonObject;
  return { ref: params['ref'], args };
}

/** What a completion answers when nobody completes the reference: no values (the method exists). */
export const NO_COMPLETIONS = { completion: { values: [], hasMore: false } };
