// Manifest-built tools over the compat fixtures (test/fixtures/compat_*.wat), in real temp dirs.
import { copyFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadManifestFile, toolFromManifest } from '../../host/src/manifest/index.js';
import { ToolFailure, type ExecIdentity, type JsonObject, type ToolDefinition } from '../../host/src/tool/index.js';
import { tempDir, writeFileIn, yamlOf } from '../manifest/helpers.js';

export const BUILD = resolve(__dirname, '../fixtures/build');

export interface Workspace {
  dir: string;
  /** Copies fixture modules (by name, without .wasm) next to the manifests. */
  modules(...names: string[]): void;
  /** Writes tool.yaml from `manifest`, loads it and builds the tool (closed by close()). */
  tool(manifest: Record<string, unknown>): Promise<ToolDefinition>;
  close(): Promise<void>;
}

export async function workspace(): Promise<Workspace> {
  const { dir, cleanup } = await tempDir();
  const open: ToolDefinition[] = [];
  return {
    dir,
    modules: (...names) => names.forEach((n) => copyFileSync(join(BUILD, `${n}.wasm`), join(dir, `${n}.wasm`))),
    async tool(manifest) {
      const file = await writeFileIn(dir, 'tool.yaml', yamlOf(manifest));
      const t = await toolFromManifest(await loadManifestFile(file), { env: {} });
      open.push(t);
      return t;
    },
    async close() {
      await Promise.all(open.map((t) => t.dispose?.()));
      await cleanup();
    },
  };
}

export function manifest(over: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'toolgate/v1', name: 'compat', version: '1.0.0', description: 'A compat test tool.', ...over };
}

export function run(tool: ToolDefinition, args: JsonObject): Promise<unknown> {
  const exec: ExecIdentity = { callId: 'test', name: tool.name, arguments: args, signal: AbortSignal.timeout(20_000) };
  return Promise.resolve(tool.execute(args, exec));
}

export async function failureOf(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    if (err instanceof Error) return err;
    throw err;
  }
  throw new Error('expected a failure');
}

export { ToolFailure };
