// What modules serve besides tools (module.abi: hyper-mcp v2): resources, resource templates,
// prompts and completions, gathered from the registry's surfaces for both MCP revisions and the
// HTTP API. Lists come from what each module described at load; every read, get and complete is a
// pipeline call of the owning plugin's operation (`<plugin>__resources__read`,
// `<plugin>__prompts__get`, `<plugin>__completion__complete`), so deny-tools, ask, rate limits and
// the audit log cover it by that name (docs/mcp.md, "Resources, prompts and completions").
import type { JsonObject, ServedItem, ServedSurface, ToolResult } from '../tool/index.js';
import { CLIENT_REQUEST_BOUNDS, templateMatches } from '../manifest/index.js';
import type { SidecarCore } from './core.js';
import { RpcError } from './rpc-error.js';

const surfaces = (core: SidecarCore): ServedSurface[] => core.tools.surfaces();

/**
 * Items of every surface whose key (a URI, a template, a name) no other plugin serves: a key two
 * plugins claim is served by neither, so no plugin shadows another by loading first or reloading
 * later (docs/decisions.md, "No shadowing: a name claimed twice is served by neither").
 */
function gather(core: SidecarCore, pick: (s: ServedSurface) => readonly ServedItem[], key: string): ServedItem[] {
  const owners = ownersOf(surfaces(core), pick, key);
  const out: ServedItem[] = [];
  for (const s of surfaces(core)) {
    for (const item of pick(s)) if (owners.get(String(item[key]))?.length === 1) out.push(item);
  }
  return out;
}

/** For each key, the plugins that serve it (once each). */
function ownersOf(
  all: readonly ServedSurface[],
  pick: (s: ServedSurface) => readonly ServedItem[],
  key: string,
): Map<string, string[]> {
  const owners = new Map<string, string[]>();
  for (const s of all) {
    for (const item of pick(s)) {
      const k = String(item[key]);
      const list = owners.get(k) ?? [];
      if (!list.includes(s.plugin)) owners.set(k, [...list, s.plugin]);
    }
  }
  return owners;
}

/** The keys of `pick` that more than one plugin serves, with those plugins (for a warning at load). */
export function sharedKeys(
  all: readonly ServedSurface[],
): { kind: 'resource' | 'resource template' | 'prompt'; key: string; plugins: string[] }[] {
  const kinds = [
    ['resource', (s: ServedSurface) => s.resources, 'uri'],
    ['resource template', (s: ServedSurface) => s.resourceTemplates, 'uriTemplate'],
    ['prompt', (s: ServedSurface) => s.prompts, 'name'],
  ] as const;
  const out: { kind: 'resource' | 'resource template' | 'prompt'; key: string; plugins: string[] }[] = [];
  for (const [kind, pick, key] of kinds) {
    for (const [k, plugins] of ownersOf(all, pick, key)) if (plugins.length > 1) out.push({ kind, key: k, plugins });
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

/** The one surface `holds` picks, or undefined when none or several do (several is no one's). */
function onlyOne(all: readonly ServedSurface[], holds: (s: ServedSurface) => boolean): ServedSurface | undefined {
  const found = all.filter(holds);
  return found.length === 1 ? found[0] : undefined;
}

/**
 * The operation that reads `uri`: the plugin that listed it, else the plugin whose template matches;
 * when two list it, or none lists it and two templates match, nobody reads it.
 */
export function readOperationFor(core: SidecarCore, uri: string): string | undefined {
  const all = surfaces(core).filter((s) => s.operations.read !== undefined);
  const listing = all.filter((s) => s.resources.some((r) => r['uri'] === uri));
  if (listing.length > 0) return listing.length === 1 ? listing[0]?.operations.read : undefined;
  return onlyOne(all, (s) => s.resourceTemplates.some((t) => templateMatches(String(t['uriTemplate']), uri)))
    ?.operations.read;
}

export function promptOperationFor(core: SidecarCore, name: string): string | undefined {
  return onlyOne(
    surfaces(core).filter((s) => s.operations.get !== undefined),
    (s) => s.prompts.some((p) => p['name'] === name),
  )?.operations.get;
}

/** The plugin serving the prompt or template a completion refers to; none when two serve it. */
export function completeOperationFor(core: SidecarCore, ref: Record<string, unknown>): string | undefined {
  const completing = surfaces(core).filter((s) => s.operations.complete !== undefined);
  const owner =
    ref['type'] === 'ref/prompt'
      ? onlyOne(completing, (s) => s.prompts.some((p) => p['name'] === ref['name']))
      : onlyOne(completing, (s) =>
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

const C = CLIENT_REQUEST_BOUNDS;

/** -32602 when a string a client sent is longer than its bound, naming the method, the key and the bound. */
function within(method: string, key: string, value: unknown, max: number): void {
  if (typeof value === 'string' && value.length > max)
    throw new RpcError(-32602, `${method}: ${key} is ${value.length} characters, more than ${max}`);
}

/**
 * A URI a client asks to read, held to its bound before any plugin's templates are matched against
 * it: a match costs main-thread time in the URI's length, per template (docs/decisions.md, "Red
 * team round: completions and what else a client names").
 */
export function boundedUri(method: string, uri: string): string {
  within(method, 'params.uri', uri, C.uriChars);
  return uri;
}

/** context.arguments of a completion: at most C.contextArguments strings, each within its bound. */
function contextArguments(context: unknown): JsonObject | undefined {
  if (!isObject(context) || context['arguments'] === undefined) return undefined;
  const given = context['arguments'];
  if (!isObject(given)) throw new RpcError(-32602, 'completion/complete: params.context.arguments must be an object');
  const names = Object.keys(given);
  if (names.length > C.contextArguments)
    throw new RpcError(
      -32602,
      `completion/complete: params.context.arguments has ${names.length} entries, more than ${C.contextArguments}`,
    );
  for (const name of names) {
    within('completion/complete', 'an argument name in params.context.arguments', name, C.nameChars);
    within('completion/complete', `params.context.arguments[${JSON.stringify(name)}]`, given[name], C.valueChars);
  }
  return given as JsonObject;
}

/**
 * completion/complete params, passed on as the operation's arguments, each string within its bound
 * before the reference is looked up (the context passes on its `arguments` only, as hyper-mcp's
 * envelope has it).
 */
export function completeParams(params: unknown): { ref: Record<string, unknown>; args: JsonObject } {
  if (!isObject(params) || !isObject(params['ref']) || !isObject(params['argument']))
    throw new RpcError(-32602, 'completion/complete: params.ref and params.argument must be objects');
  const { ref, argument } = params;
  within('completion/complete', 'params.ref.name', ref['name'], C.nameChars);
  within('completion/complete', 'params.ref.uri', ref['uri'], C.uriChars);
  within('completion/complete', 'params.argument.name', argument['name'], C.nameChars);
  within('completion/complete', 'params.argument.value', argument['value'], C.valueChars);
  const args: JsonObject = { ref: ref as JsonObject, argument: argument as JsonObject };
  const given = contextArguments(params['context']);
  if (given !== undefined) args['context'] = { arguments: given };
  return { ref, args };
}

/** What a completion answers when nobody completes the reference: no values (the method exists). */
export const NO_COMPLETIONS = { completion: { values: [], hasMore: false } };
