// Wires manifest folders and the installed store into a runtime. A bad manifest is reported on
// stderr and skipped; the other tools still load (docs/authoring.md, "The manifest").
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Context } from '../plugin/index.js';
import { messageOf } from '../errors/index.js';

/**
 * Loads manifest tools into `ctx`: from `dirs` (files and folders), plus the installed store under
 * `storeDir` unless the user named them (`explicit`); returns a line for each manifest that did not
 * load or register. Defined here, not in runtime.ts, which loads this file
 * lazily: a type import back from runtime.ts would close an import cycle.
 */
export type ManifestLoader = (
  ctx: Context,
  dirs: string[],
  options: { explicit: boolean; storeDir: string; policyDir?: string },
) => Promise<string[]>;

/**
 * The store's lockfile and tools folder (the registry's storeLayout(home).lock and .tools). Named
 * here so that serving with an empty store does not load the registry door at all; the
 * serve-pickup test fails if these drift from the registry's layout.
 */
const LOCKFILE = 'toolgate.lock';
const TOOLS_DIR = 'tools';

/** Where installed tools come from, and what to watch to see installs and uninstalls. */
export interface InstalledSource {
  /** The manifest folders of the installed tools that pass their lockfile check, now. */
  dirs(): Promise<string[]>;
  /** The store folder (only its lockfile counts) and its tools/ folder. */
  watch: { dir: string; names?: string[] }[];
}

/**
 * `report` receives each installed tool that failed its check (default: a log warning); a one-shot
 * command passes its own so the reason is a human line, like a local manifest's.
 */
export function installedSource(
  storeDir: string,
  logger: Logger,
  report: (problem: string) => void = (p) => logger.warn(p),
): InstalledSource {
  return {
    async dirs() {
      if (!existsSync(join(storeDir, LOCKFILE))) return [];
      // Installed tools are re-checked against the lockfile before their manifests are trusted.
      const { installedManifestDirs } = await import('../registry/index.js');
      const installed = await installedManifestDirs(storeDir).catch((err: unknown) => {
        report(`installed tools not loaded: ${messageOf(err)}`);
        return { dirs: [], problems: [] };
      });
      for (const p of installed.problems) report(`installed tool ${p.tool}: ${p.file}: ${p.message}`);
      return installed.dirs;
    },
    watch: [{ dir: storeDir, names: [LOCKFILE] }, { dir: join(storeDir, TOOLS_DIR) }],
  };
}

/** Registers the tools; returns every manifest that did not load or register, one line each. */
export const loadManifestTools: ManifestLoader = async (ctx: Context, dirs, options) => {
  const { loadToolsFromDirs, enablePreparedModuleCache, protectControlDir } = await import('../manifest/index.js');
  await enablePreparedModuleCache(options.storeDir, ctx.logger);
  // What this runtime reads back while it runs is no tool's to rewrite (no rw mount over it).
  if (options.policyDir !== undefined)
    ctx.effect(() => protectControlDir(options.policyDir as string, 'the policy set in force', true));
  // (a manifest file given alone is protected as itself: any folder mount that contains it is its
  // folder or above, as when its folder is protected)
  for (const d of dirs) ctx.effect(() => protectControlDir(d, 'a manifests folder this runtime loads', false));
  const all = [...dirs];
  const problems: string[] = [];
  if (!options.explicit)
    all.push(...(await installedSource(options.storeDir, ctx.logger, (p) => problems.push(p)).dirs()));
  const { tools, fileOf, plugins, errors } = await loadToolsFromDirs(all, { logger: ctx.logger });
  problems.push(...errors.map((err) => err.message));
  for (const plugin of plugins) {
    // module.abi: hyper-mcp: every tool it describes, its operations and what it serves besides
    ctx.effect(() => () => plugin.dispose());
    for (const def of plugin.tools) {
      try {
        ctx.tool(def);
      } catch (err) {
        problems.push(`${plugin.file}: tool "${def.name}" not registered: ${messageOf(err)}`);
      }
    }
    for (const op of plugin.operations) ctx.effect(() => ctx.tools.registerOperation(op));
    const surface = plugin.surface;
    if (surface !== undefined) ctx.effect(() => ctx.tools.registerSurface(surface));
  }
  for (const def of tools) {
    try {
      ctx.tool(def);
    } catch (err) {
      // A name a built-in or a policy holds: this manifest is not served, and the line says which file
      // (two manifests with one name were both refused already: docs/decisions.md, "No shadowing").
      problems.push(`${fileOf.get(def) ?? '(manifest)'}: tool "${def.name}" not registered: ${messageOf(err)}`);
      await def.dispose?.();
    }
  }
  return problems;
};
