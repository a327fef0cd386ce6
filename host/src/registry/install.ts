// `toolgate install`: fetch, verify digests and signature, check the lockfile (downgrades), the
// policy ceiling and the user's consent, then commit atomically to the store.
import { RegistryError } from './errors.js';
import { diffCapabilities } from './capabilities.js';
import { enforceCeiling, flagLines, requireConsent, type ConsentOptions } from './install-checks.js';
import { diffModelText } from './word-diff.js';
import type { Progress } from './http.js';
import { readLock } from './lockfile.js';
import { compareVersionText } from './semver.js';
import { fetchPackage, parseSourceRef } from './sources.js';
import { commitInstall, installedPackageManifest, withStore, type PauseHook } from './store.js';
import { judgeSignature, requireTrust } from './trust-check.js';

export interface InstallOptions extends ConsentOptions {
  ref: string;
  home: string;
  cwd: string;
  insecure?: boolean;
  allowUnsigned?: boolean;
  allowDowngrade?: boolean;
  /** A toolgate manifest for a plain wasm module or artifact (--manifest). */
  manifestFile?: string;
  progress?: Progress;
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
    ...(opts.progress ? { progress: opts.progress } : {}),
    ...(opts.manifestFile !== undefined ? { manifestFile: opts.manifestFile } : {}),
  });
  const pkg = fetched.pkg;
  const what = `${pkg.name}@${pkg.version}`;

  // Settle whatever a killed process left (briefly holding the store), then decide without holding
  // it: a person may take minutes to answer, and other commands must not wait on them.
  const layout = await withStore(opts.home, async (l) => l);
  const verdict = await judgeSignature(pkg, layout.trust);
  const warning = requireTrust(pkg, verdict, opts.allowUnsigned === true);
  if (warning) opts.say(`\n!!! ${warning}\n\n`);

  const lock = await readLock(layout.lock);
  const previous = lock.tools[pkg.name];
  let outcome: InstallOutcome = 'installed';
  if (previous) {
    const order = compareVersionText(pkg.version, previous.version);
    if (order === 0) {
      if (sameDigests(previous.digests, pkg.digests as Record<string, string>)) {
        return {
          name: pkg.name,
          version: pkg.version,
          outcome: 'unchanged',
          previousVersion: previous.version,
          ...(previous.signer ? { signer: previous.signer.name } : {}),
        };
      }
      throw new RegistryError('VERSION_CONFLICT', `${what}: the installed ${what} has different contents (file digests differ); a publisher must not reuse a version`);
    }
    if (order < 0 && opts.allowDowngrade !== true) {
      throw new RegistryError('DOWNGRADE', `${what} is lower than the installed ${previous.version} pinned in ${layout.lock}; pass --allow-downgrade to go back`);
    }
    outcome = order < 0 ? 'downgraded' : 'upgraded';
  }

  await enforceCeiling(pkg, opts, layout);

  const before = previous ? await installedPackageManifest(layout, previous) : undefined;
  let needsConsent = true;
  let review = 'the capabilities';
  if (before) {
    const diff = diffCapabilities(before.capabilities, pkg.manifest.capabilities);
    opts.say(`${pkg.name}: ${previous?.version ?? '?'} -> ${pkg.version}; capability changes:\n`);
    opts.say(diff.lines.length === 0 ? '  (none)\n' : diff.lines.map((l) => `  ${l}\n`).join(''));
    // The description and schemas are instructions the model follows: a change asks again too.
    const text = diffModelText(before.model, pkg.manifest.model);
    opts.say(`${pkg.name}: changes to what the model reads:\n`);
    opts.say(text.lines.length === 0 ? '  (none)\n' : text.lines.map((l) => `  ${l}\n`).join(''));
    needsConsent = diff.grew || text.changed.length > 0;
    if (text.changed.length > 0) review = `the changes to what the model reads (${text.changed.join(', ')})`;
  } else {
    opts.say(`${what} (${fetched.source}) asks for:\n${pkg.manifest.described.map((l) => `  ${l}\n`).join('')}`);
  }
  opts.say(flagLines(pkg));
  if (needsConsent) await requireConsent(what, `Install ${what} with these capabilities? [y/N] `, review, opts);

  await withStore(opts.home, async (held) => {
    // What the person agreed to must still be what gets replaced.
    const now = (await readLock(held.lock)).tools[pkg.name];
    if (JSON.stringify(now ?? null) !== JSON.stringify(previous ?? null)) {
      throw new RegistryError('STORE_CHANGED', `${pkg.name}: the store changed while this install was waiting (another install or uninstall); run it again`);
    }
    await commitInstall(
      held,
      pkg,
      {
        version: pkg.version,
        source: fetched.source,
        signer: verdict.kind === 'trusted' ? { keyId: verdict.keyId, name: verdict.name, signature: verdict.signature } : null,
        resolved: fetched.resolved,
        pinned: fetched.pinned,
        ...(fetched.manifestFile !== undefined ? { manifestFile: fetched.manifestFile } : {}),
      },
      opts.pause,
    );
  });
  return {
    name: pkg.name,
    version: pkg.version,
    outcome,
    ...(previous ? { previousVersion: previous.version } : {}),
    ...(verdict.kind === 'trusted' ? { signer: verdict.name } : {}),
  };
}
