// Wires manifest folders and the installed store into a runtime. A bad manifest is reported on
// stderr and skipped; the other tools still load (DESIGN §5).
import type { Context } from '../plugin/index.js';
import type { ManifestLoader } from './runtime.js';

export const loadManifestTools: ManifestLoader = async (ctx: Context, dirs, options) => {
  const { loadToolsFromDirs } = await import('../manifest/index.js');
  const all = [...dirs];
  if (!options.explicit) {
    // Installed tools are re-checked against the lockfile before their manifests are trusted.
    const { installedManifestDirs } = await import('../registry/index.js');
    const installed = await installedManifestDirs(options.storeDir).catch((err: unknown) => {
      ctx.logger.warn(`installed tools not loaded: ${err instanceof Error ? err.message : String(err)}`);
      return { dirs: [], problems: [] };
    });
    for (const p of installed.problems) ctx.logger.warn(`${p.tool}: ${p.file}: ${p.message}`);
    all.push(...installed.dirs);
  }
  const { tools, errors } = await loadToolsFromDirs(all, { logger: ctx.logger });
  for (const err of errors) ctx.logger.warn(err.message);
  for (const def of tools) {
    try {
      ctx.tool(def);
    } catch (err) {
      // A name clash with a built-in or an earlier folder: keep the first, say which lost.
      ctx.logger.warn(`tool "${def.name}" not registered: ${err instanceof Error ? err.message : String(err)}`);
      await def.dispose?.();
    }
  }
};
