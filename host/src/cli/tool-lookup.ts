// What the commands that name a tool say when it is not there: the manifests that failed to load
// (each naming its file, key and rule), the closest tool name, and where they looked.
import type { CliIO } from './command.js';
import type { Runtime } from './runtime.js';
import { didYouMean } from './suggest.js';
import { UsageError } from './usage.js';

/** The --manifests help line, aligned at `column`. */
export function manifestsHelp(column: number): string {
  return [
    `  ${'--manifests PATH'.padEnd(column - 2)}a manifest file or a folder of them (repeatable; default ./manifests,`,
    `  ${''.padEnd(column - 2)}the toolgate manifests in the current folder, and the installed store)`,
  ].join('\n');
}

/** One stderr line per manifest that did not load, so the reason is never only in a log line. */
export function reportManifestProblems(io: CliIO, command: string, problems: readonly string[]): void {
  for (const p of problems) io.stderr(`toolgate ${command}: ${p}\n`);
}

/**
 * The usage error for a tool name nothing defines (exit 2). When the manifest file named after the
 * tool, or the installed tool of that name, is among those that failed, its reason (file, key path,
 * rule) is the first line.
 */
export function missingTool(
  name: string,
  runtime: Pick<Runtime, 'tools' | 'manifestDirs' | 'manifestProblems'>,
): UsageError {
  const ownFile = new RegExp(`[\\\\/]${escapeRegExp(name)}\\.ya?ml: `);
  const own = runtime.manifestProblems.find((p) => ownFile.test(p) || p.startsWith(`installed tool ${name}: `));
  const others = runtime.manifestProblems
    .filter((p) => p !== own)
    .map((p) => `\n  also not loaded: ${p}`)
    .join('');
  if (own !== undefined) return new UsageError(`tool "${name}" did not load: ${own}${others}`);
  const known = runtime.tools.list().map((t) => t.name);
  const where =
    runtime.manifestDirs.length > 0
      ? ` (looked in ${runtime.manifestDirs.join(', ')})`
      : ' (no manifests found here; name them with --manifests)';
  return new UsageError(`no tool named "${name}"${didYouMean(name, known, (s) => `"${s}"`)}${where}${others}`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
