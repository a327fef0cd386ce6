// Builds one generation of a policy set beside the one serving: its entries load in order under one
// child plugin, and a set that fails to load is disposed before anything of it acted on a call.
import { messageOf } from '../errors/index.js';
import type { Context } from '../plugin/index.js';
import { policyContext, type EntryScope } from './context.js';
import { PolicyConfigError } from './errors.js';
import type { ParsedSet, PolicyEntry } from './set-file.js';
import type { PolicyServices } from './services.js';
import { PolicySet, type SetSwitch } from './switch.js';

/** What every entry of a set is mounted with. */
type SetParts = Pick<EntryScope, 'set' | 'sw' | 'services'>;

/** Mounts generation `gen` of the parsed set under `parent`; throws the PolicyConfigError that stopped it. */
export async function mountSet(
  parent: Context,
  parsed: ParsedSet,
  gen: number,
  sw: SetSwitch,
  services: PolicyServices,
): Promise<PolicySet> {
  const enabled = parsed.entries.filter((e) => !e.disabled);
  const set = new PolicySet(
    gen,
    enabled.map((e) => e.id),
  );
  const h = parent.plugin(
    async (setCtx: Context) => {
      // In order: an entry that fails stops the set here and undoes the entries before it.
      for (const entry of enabled) await mountEntry(setCtx, entry, { set, sw, services });
    },
    undefined,
    { name: `set-${gen}` },
  );
  set.handle = h;
  try {
    await h.ready;
  } catch (err) {
    await h.dispose();
    // Until it is swapped in, nothing of a half-mounted set acted on any call (see context.ts).
    throw err instanceof Error && err.cause instanceof PolicyConfigError ? err.cause : err;
  }
  return set;
}

/** One entry as a child plugin of its set; its failure names the file, the entry and the cause. */
async function mountEntry(setCtx: Context, entry: PolicyEntry, parts: SetParts): Promise<void> {
  const label = `entries[${entry.index}] (id "${entry.id}", use ${entry.use})`;
  const scope = { id: entry.id, inject: entry.module.inject ?? [], ...parts };
  try {
    const child = setCtx.plugin((c: Context) => entry.module.apply(policyContext(c, scope), entry.config), undefined, {
      name: entry.id,
    });
    await child.ready;
  } catch (err) {
    throw new PolicyConfigError(
      entry.file,
      `${label} failed to load: ${err instanceof Error && err.cause instanceof Error ? err.cause.message : messageOf(err)}`,
    );
  }
}
