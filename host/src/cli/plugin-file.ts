// `toolgate call ./plugin.wasm --entry NAME --input TEXT`: a stock Extism plugin tried without a
// manifest. A manifest is written for it in a temporary folder (raw input, text output, no
// capabilities at all) and the call goes through the ordinary pipeline like any other.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { UsageError } from './usage.js';
import { messageOf } from '../errors/index.js';
import { yaml } from '../lazy-yaml/index.js';

export interface AdHocPlugin {
  dir: string;
  tool: string;
  cleanup(): Promise<void>;
}

export function isPluginFile(arg: string): boolean {
  return arg.toLowerCase().endsWith('.wasm');
}

/** A tool name from the file name: lower case, [a-z0-9_], starting with a letter. */
function toolNameOf(file: string): string {
  const stem = basename(file)
    .replace(/\.wasm$/i, '')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^[^a-z]+/, '');
  return (stem === '' ? 'plugin' : stem).slice(0, 64);
}

export async function adHocPlugin(file: string, entry: string | undefined, cwd: string): Promise<AdHocPlugin> {
  if (entry === undefined || entry === '')
    throw new UsageError(`${file}: --entry NAME is required to call a plugin file (the export to run)`);
  const path = resolve(cwd, file);
  try {
    if (!(await stat(path)).isFile()) throw new Error('not a regular file');
  } catch (err) {
    throw new UsageError(`${file}: cannot use this plugin file: ${messageOf(err)}`);
  }
  const tool = toolNameOf(path);
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-plugin-'));
  const manifest = {
    apiVersion: 'toolgate/v1',
    name: tool,
    version: '0.0.0',
    description: `The plugin ${basename(path)} (export ${entry}), called without a manifest.`,
    module: { path, entry },
    parameters: { input: { type: 'string', required: true, description: 'The raw input.' } },
    input: { encoding: 'raw', parameter: 'input' },
    output: { encoding: 'text', render: 'text' },
  };
  await writeFile(join(dir, `${tool}.yaml`), yaml().stringify(manifest));
  return { dir, tool, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
