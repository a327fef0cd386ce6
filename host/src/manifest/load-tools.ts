// The one call the CLI and the server make: manifest folders -> ready tools, plus every reason a
// manifest was skipped. One bad manifest never stops the others from loading.
import type { ToolDefinition } from '../tool/index.js';
import { toolFromManifest, type BridgeOptions } from './bridge.js';
import { pluginFromManifest, type LoadedPlugin } from './hyper-mcp.js';
import { ManifestError } from './errors.js';
import { loadManifestDirs, type LoadDirsOptions } from './load.js';
import { withholdNames } from './shared-names.js';
import { messageOf } from '../errors/index.js';

export type LoadToolsOptions = BridgeOptions & LoadDirsOptions;

export interface LoadToolsResult {
  tools: ToolDefinition[];
  /** The manifest file each of `tools` came from (a refusal to register names it). */
  fileOf: ReadonlyMap<ToolDefinition, string>;
  /** module.abi: hyper-mcp manifests, described (their tools are not in `tools`). */
  plugins: LoadedPlugin[];
  errors: ManifestError[];
}

export async function loadToolsFromDirs(dirs: string[], opts: LoadToolsOptions = {}): Promise<LoadToolsResult> {
  const { manifests, errors, withheld } = await loadManifestDirs(dirs, opts);
  const tools: ToolDefinition[] = [];
  const fileOf = new Map<ToolDefinition, string>();
  const plugins: LoadedPlugin[] = [];
  for (const loaded of manifests) {
    try {
      if (loaded.manifest.module.abi === 'hyper-mcp') {
        const plugin = await pluginFromManifest(loaded, opts);
        withholdNames(plugin, withheld);
        errors.push(...plugin.problems);
        plugins.push(plugin);
      } else {
        const tool = await toolFromManifest(loaded, opts);
        tools.push(tool);
        fileOf.set(tool, loaded.file);
      }
    } catch (err) {
      errors.push(
        err instanceof ManifestError
          ? err
          : new ManifestError('SANDBOX_LOAD', loaded.file, [{ path: '', rule: messageOf(err) }]),
      );
    }
  }
  return { tools, fileOf, plugins, errors };
}
