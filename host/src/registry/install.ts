// `toolgate install`: fetch, verify digests and signature, check the lockfile (downgrades), the
// policy ceiling and the user's consent, then commit atomically to the store.
import { RegistryError } from './errors.js';
import { diffCapabilities } from './capabilities.js';
import { enforceCeiling, flagLines, requireConsent, type ConsentOptions } from './install-checks.js';
import { diffModelText } from './word-diff.js';
import type { ToolPackage } from './package.js';
import { deadlineIn, INSTALL_TIMEOUT_MS, type Progress } from './http.js';
import { readLock, type LockEntry } from './lockfile.js';
import { compareVersionText } from './semver.js';
import { fetchPackage, parseSourceRef, type FetchedPackage } from './sources.js';
import {
  commitInstall,
  installedManifestText,
  installedPackageManifest,
  withStore,
  type PauseHook,
  type StoreLayout,
} from './store.js';
import { describedReview, describePackage, sayDescribedChanges } from './described.js';
import { judgeSignature, requireTrust, signerLine, type TrustVerdict } from './trust-check.js';
import { ownEntry } from './own.js';

export interface InstallOptions extends ConsentOptions {
  ref: string;
  home: string;
  cwd: string;
  insecure?: boolean;
  allowUnsigned?: boolean;
  allowDowngrade?: boolean;
  /** A toolgate manifest for a plain wasm module or artifact (--manifest). */
  manifestFile?: string;
  /**
   * Accept a drafted manifest for a hyper-mcp plugin that came without one (--draft-manifest).
   * Without it a draft is made only when a person is asked on a terminal (no --yes).
   */
  draftManifest?: boolean;
  progress?: Progress;
  /** How long every download of the install may take in all (install --timeout); default INSTALL_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Where notes and warnings go (stderr). */
  say(text: string): void;
  pause?: PauseHook;
}

export type InstallOutcome = 'installed' | 'upgraded' | 'downgraded' | 'unchanged';

export interface InstallResult {
  name: string;
  version: string;
  outcome: InstallOutcome;
  previousVersion?: string;
  signer?: string;
}

function sameDigests(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a[k] === b[k]);
}

export async function installTool(opts: InstallOptions): Promise<InstallResult> {
  const source = await parseSourceRef(opts.ref, opts.cwd);
  const fetched = await fetchPackage(source, {
    insecure: opts.insecure === true,
    deadline: deadlineIn(opts.timeoutMs ?? INSTALL_TIMEOUT_MS),
    ...(opts.progress ? { progress: opts.progress } : {}),
    ...(opts.manifestFile !== undefined ? { manifestFile: opts.manifestFile } : {}),
    ...(mayDraft(opts) ? { draft: {} } : {}),
  });
  const pkg = fetched.pkg;
  const what = `${pkg.name}@${pkg.version}`;
  if (fetched.drafted === true) opts.say(draftShown(pkg));

  // Settle whatever a killed process left (briefly holding the store), then decide without holding
  // it: a person may take minutes to answer, and other commands must not wait on them.
  const layout = await withStore(opts.home, async (l) => l);
  const verdict = await judgeSignature(pkg, layout.trust);
  const warning = requireTrust(pkg, verdict, opts.allowUnsigned === true);
  if (warning) opts.say(`\n!!! ${warning}\n\n`);

  const previous = ownEntry((await readLock(layout.lock)).tools, pkg.name);
  let outcome = previous ? versionOutcome(pkg, previous, layout.lock, opts.allowDowngrade === true) : 'installed';
  // the same bytes of a hyper-mcp module may describe other text now: installing again re-pins it, after review
  if (outcome === 'unchanged' && previous?.described !== undefined)
    outcome = await describeAgain(layout, pkg, previous.described.digest);
  if (outcome === 'unchanged' && previous) {
    return {
      name: pkg.name,
      version: pkg.version,
      outcome,
      previousVersion: previous.version,
      ...(previous.signer ? { signer: previous.signer.name } : {}),
    };
  }

  await enforceCeiling(pkg, opts, layout);
  // a hyper-mcp module's text is known only by running it (under its manifest's limits, after the
  // ceiling allowed those); its flags are then held to the ceiling too
  if (pkg.manifest.module.abi === 'hyper-mcp') {
    if (pkg.described === undefined) await describePackage(layout, pkg, installedManifestText(layout, pkg));
    await enforceCeiling(pkg, opts, layout);
  }
  const consent = await showWhatChanges(fetched, previous, layout, opts.say);
  opts.say(`${pkg.name}@${pkg.version}: ${signerLine(verdict)}\n`);
  opts.say(flagLines(pkg));
  const question =
    fetched.drafted === true
      ? `Install ${what} with the drafted manifest above (it grants nothing)? [y/N] `
      : `Install ${what} with these capabilities? [y/N] `;
  if (consent.needed) await requireConsent(what, question, consent.review, opts);

  await commitUnlessStoreChanged(opts, fetched, previous, verdict);
  return {
    name: pkg.name,
    version: pkg.version,
    outcome,
    ...(previous ? { previousVersion: previous.version } : {}),
    ...(verdict.kind === 'trusted' ? { signer: verdict.name } : {}),
  };
}

/**
 * A manifest is drafted only when someone accepts drafts: --draft-manifest, or a person answering on
 * a terminal (without --yes), who sees the draft before the prompt (docs/decisions.md, "Drafted
 * manifests grant nothing").
 */
function mayDraft(opts: InstallOptions): boolean {
  if (opts.manifestFile !== undefined) return false;
  return opts.draftManifest === true || (opts.yes !== true && opts.ask !== undefined);
}

function draftShown(pkg: ToolPackage): string {
  const text = pkg.manifestText
    .trimEnd()
    .split('\n')
    .map((l) => `  | ${l}\n`)
    .join('');
  return `${pkg.name}@${pkg.version}: no toolgate manifest came with it; this manifest was drafted from the module's exports (it grants nothing):\n${text}`;
}

/** Describes an unchanged package's module again: 'installed' (re-pin) when its text left its pin. */
async function describeAgain(layout: StoreLayout, pkg: ToolPackage, pinned: string): Promise<InstallOutcome> {
  await describePackage(layout, pkg, installedManifestText(layout, pkg));
  return pkg.described?.pin.digest === pinned ? 'unchanged' : 'installed';
}

/** The package against the installed version: same contents, a new version, or a refused one. */
function versionOutcome(
  pkg: ToolPackage,
  previous: LockEntry,
  lockFile: string,
  allowDowngrade: boolean,
): InstallOutcome {
  const what = `${pkg.name}@${pkg.version}`;
  const order = compareVersionText(pkg.version, previous.version);
  if (order === 0) {
    if (sameDigests(previous.digests, pkg.digests as Record<string, string>)) return 'unchanged';
    throw new RegistryError(
      'VERSION_CONFLICT',
      `${what}: the installed ${what} has different contents (file digests differ); a publisher must not reuse a version`,
    );
  }
  if (order < 0 && !allowDowngrade) {
    throw new RegistryError(
      'DOWNGRADE',
      `${what} is lower than the installed ${previous.version} pinned in ${lockFile}; pass --allow-downgrade to go back`,
    );
  }
  return order < 0 ? 'downgraded' : 'upgraded';
}

/**
 * Tells the person what they are agreeing to: a new tool's capabilities, or an upgrade's changes
 * to its capabilities and to what the model reads; consent is needed unless nothing grew or changed.
 */
async function showWhatChanges(
  fetched: FetchedPackage,
  previous: LockEntry | undefined,
  layout: StoreLayout,
  say: (text: string) => void,
): Promise<{ needed: boolean; review: string }> {
  const pkg = fetched.pkg;
  const before = previous ? await installedPackageManifest(layout, previous) : undefined;
  if (!before) {
    say(
      `${pkg.name}@${pkg.version} (${fetched.source}) asks for:\n${pkg.manifest.described.map((l) => `  ${l}\n`).join('')}`,
    );
    say(describedReview(pkg));
    return { needed: true, review: 'the capabilities' };
  }
  const diff = diffCapabilities(before.capabilities, pkg.manifest.capabilities);
  say(`${pkg.name}: ${previous?.version ?? '?'} -> ${pkg.version}; capability changes:\n`);
  say(diff.lines.length === 0 ? '  (none)\n' : diff.lines.map((l) => `  ${l}\n`).join(''));
  // The description and schemas are instructions the model follows: a change asks again too.
  const text = diffModelText(before.model, pkg.manifest.model);
  say(`${pkg.name}: changes to what the model reads:\n`);
  say(text.lines.length === 0 ? '  (none)\n' : text.lines.map((l) => `  ${l}\n`).join(''));
  // linked modules are code the tool runs, like module.wasm: the review names them and their digests
  if (pkg.manifest.describedLinks.length > 0)
    say(`${pkg.name}: linked modules:\n${pkg.manifest.describedLinks.map((l) => `  ${l}\n`).join('')}`);
  const served = previous ? await sayDescribedChanges(layout, previous, pkg, say) : [];
  const changes = [...text.changed, ...served];
  return {
    needed: diff.grew || changes.length > 0,
    review: changes.length > 0 ? `the changes to what the model reads (${changes.join(', ')})` : 'the capabilities',
  };
}

/** Commits under the store lock, unless the entry changed while the person was deciding. */
async function commitUnlessStoreChanged(
  opts: InstallOptions,
  fetched: FetchedPackage,
  previous: LockEntry | undefined,
  verdict: TrustVerdict,
): Promise<void> {
  const pkg = fetched.pkg;
  await withStore(opts.home, async (held) => {
    // What the person agreed to must still be what gets replaced.
    const now = ownEntry((await readLock(held.lock)).tools, pkg.name);
    if (JSON.stringify(now ?? null) !== JSON.stringify(previous ?? null)) {
      throw new RegistryError(
        'STORE_CHANGED',
        `${pkg.name}: the store changed while this install was waiting (another install or uninstall); run it again`,
      );
    }
    await commitInstall(
      held,
      pkg,
      {
        version: pkg.version,
        source: fetched.source,
        signer:
          verdict.kind === 'trusted'
            ? { keyId: verdict.keyId, name: verdict.name, signature: verdict.signature }
            : null,
        resolved: fetched.resolved,
        pinned: fetched.pinned,
        ...(fetched.manifestFile !== undefined ? { manifestFile: fetched.manifestFile } : {}),
      },
      opts.pause,
    );
  });
}
