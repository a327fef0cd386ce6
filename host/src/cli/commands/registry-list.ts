import { spellHidden } from '../../terminal/index.js';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { messageOf } from '../../errors/index.js';
import { listInstalled, readManifest } from '../../registry/index.js';
import { EXIT, type CliIO, type Command } from '../command.js';
import { homeOf, runCommand } from './registry-shared.js';
import { parseFlags } from '../usage.js';

const help = `Usage: toolgate list [--manifests PATH]... [--json]

Shows installed tools (name, version, source, signer, capabilities) and, with --manifests, the tools
described by each manifest file or the manifests in each folder. --json prints
[{name, version, source, signer, capabilities, problem?}]. Exit 1 when any row has a problem.`;

interface Row {
  name: string;
  version: string;
  source: string;
  signer: string;
  capabilities: string[];
  /** module.abi: hyper-mcp: the tools the module describes, by served name, then its operations. */
  serves?: string[];
  problem?: string;
}

/** What a hyper-mcp manifest's module serves (described in the sandbox, never called); undefined for other manifests. */
async function servedBy(file: string): Promise<string[] | undefined> {
  const { loadManifestFile, pluginFromManifest } = await import('../../manifest/index.js');
  const loaded = await loadManifestFile(file);
  if (loaded.manifest.module.abi !== 'hyper-mcp') return undefined;
  const plugin = await pluginFromManifest(loaded);
  await plugin.dispose();
  return [...plugin.tools.map((t) => t.name), ...plugin.operations.map((o) => o.name)];
}

async function manifestRows(path: string): Promise<Row[]> {
  const rows: Row[] = [];
  // --manifests takes a manifest file or a folder of them.
  const isFile = (await stat(path)).isFile();
  const dir = isFile ? dirname(path) : path;
  const names = isFile
    ? [basename(path)]
    : (await readdir(dir)).filter((n) => n.endsWith('.yaml') || n.endsWith('.yml')).sort();
  for (const n of names) {
    const file = join(dir, n);
    try {
      const m = readManifest(await readFile(file, 'utf8'), file);
      const serves = await servedBy(file);
      rows.push({
        name: m.name,
        version: m.version,
        source: file,
        signer: '-',
        capabilities: m.described,
        ...(serves !== undefined ? { serves } : {}),
      });
    } catch (err) {
      rows.push({ name: n, version: '?', source: file, signer: '-', capabilities: [], problem: messageOf(err) });
    }
  }
  return rows;
}

function print(io: CliIO, rows: Row[]): void {
  // Everything here came from manifests and packages: escaped even when stdout is a pipe or file.
  const out = (t: string): void => io.stdout(spellHidden(t));
  for (const r of rows) {
    out(`${r.name}@${r.version}\n  source: ${r.source}\n  signer: ${r.signer}\n`);
    if (r.problem) out(`  PROBLEM: ${r.problem}\n`);
    for (const c of r.capabilities) out(`  ${c}\n`);
    if (r.serves !== undefined) out(`  serves: ${r.serves.join(', ')}\n`);
  }
}

export const listCommand: Command = {
  path: ['list'],
  summary: 'list installed tools and their capabilities',
  help,
  run: (argv, io) =>
    runCommand('list', io, async () => {
      const { values } = parseFlags(
        argv,
        { manifests: { type: 'string', multiple: true }, json: { type: 'boolean' } },
        { min: 0, max: 0 },
      );
      const rows: Row[] = (await listInstalled(homeOf(io))).map(({ manifestFile: _m, ...r }) => r);
      for (const dir of values.manifests ?? []) rows.push(...(await manifestRows(resolve(io.cwd, dir))));
      if (values.json === true) io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
      else if (rows.length === 0) io.stdout('no tools installed\n');
      else print(io, rows);
      return rows.some((r) => r.problem !== undefined) ? EXIT.failed : EXIT.ok;
    }),
};
