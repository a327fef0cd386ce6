// `toolgate install --locked [LOCKFILE]`: installs exactly what a lockfile pins, by its pinned
// digest reference, and refuses the lot if any byte differs (file digests, resolved digest,
// installed manifest, signer). Every tool is fetched and checked before any is committed.
import { readFile } from 'node:fs/promises';
import { RegistryError } from './errors.js';
import { deadlineIn, INSTALL_TIMEOUT_MS, type Deadline, type Progress } from './http.js';
import { parseIndexRef } from './http-index.js';
import { enforceCeiling, flagLines, requireConsent, type ConsentOptions } from './install-checks.js';
import { modelChanges } from './model-text.js';
import { parseLock, readLock, type LockEntry } from './lockfile.js';
import { parseOciRef } from './oci.js';
import type { ToolPackage } from './package.js';
import { compareVersionText } from './semver.js';
import { fetchPackage, parseSourceRef } from './sources.js';
import {
  checkInstalled,
  commitInstall,
  installedManifestDigest,
  installedManifestText,
  withStore,
  type PauseHook,
} from './store.js';
import { describedChanges, describedReview, describePackage } from './described.js';
import type { StoreLayout } from './store-layout.js';
import { judgeSignature, requireTrust, signerLine, type TrustVerdict } from './trust-check.js';
import { findTrustedByKeyId } from './trust.js';
import { ownEntry } from './own.js';

export interface LockedInstallOptions extends ConsentOptions {
  /** The lockfile to reproduce (another machine's $TOOLGATE_HOME/toolgate.lock, or this store's). */
  lockfile: string;
  home: string;
  cwd: string;
  insecure?: boolean;
  allowUnsigned?: boolean;
  allowDowngrade?: boolean;
  progress?: Progress;
  /** How long all the downloads may take (install --timeout); default INSTALL_TIMEOUT_MS. */
  timeoutMs?: number;
  say(text: string): void;
  pause?: PauseHook;
}

export interface LockedTool {
  name: string;
  version: string;
  outcome: 'installed' | 'upgraded' | 'downgraded' | 'unchanged';
}

interface Plan extends LockedTool {
  entry: LockEntry;
  before: LockEntry | undefined;
  pkg?: ToolPackage;
  verdict?: TrustVerdict;
}

/** The reference that gets the pinned bytes; older lockfiles did not record one for every kind. */
export function pinnedRefOf(name: string, entry: LockEntry): string {
  if (entry.pinned !== undefined) return entry.pinned;
  if (entry.source.startsWith('oci://')) {
    const ref = parseOciRef(entry.source);
    if (ref.reference.startsWith('sha256:')) return entry.source;
    if (entry.resolved === undefined)
      throw new RegistryError('BAD_REFERENCE', `${name}: the lockfile pins no digest for ${entry.source}`);
    return `oci://${ref.registry}/${ref.repository}@${entry.resolved}`;
  }
  if (/^https?:\/\//.test(entry.source)) return `${parseIndexRef(entry.source).indexUrl}#${name}@=${entry.version}`;
  return entry.source;
}

/** Same keys, same digests: what `a` pins is byte for byte what `b` pins. */
export function sameDigests(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a[k] === b[k]);
}

/** Entries equal but for the signer's local name (each store names its trusted keys itself). */
function sameEntry(a: LockEntry, b: LockEntry): boolean {
  const plain = (e: LockEntry): string => {
    const { digests: _d, signer, ...rest } = e;
    const fields = Object.entries(rest).sort(([x], [y]) => (x < y ? -1 : 1));
    return JSON.stringify([fields, signer?.keyId ?? null]);
  };
  return sameDigests(a.digests, b.digests) && plain(a) === plain(b);
}

function differs(name: string, what: string): RegistryError {
  return new RegistryError('DIGEST_MISMATCH', `${name}: ${what}; nothing was installed`);
}

async function readWanted(file: string): Promise<ReturnType<typeof parseLock>> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new RegistryError(
      err.code === 'ENOENT' ? 'NOT_FOUND' : 'BAD_CONFIG',
      `${file}: cannot read the lockfile (${err.message})`,
    );
  });
  return parseLock(text, file);
}

/** Fetches one pinned tool and holds it to every digest its entry records. */
async function fetchPinned(
  name: string,
  entry: LockEntry,
  layout: StoreLayout,
  opts: LockedInstallOptions,
  deadline: Deadline,
): Promise<{ pkg: ToolPackage; verdict: TrustVerdict }> {
  const ref = pinnedRefOf(name, entry);
  const fetched = await fetchPackage(await parseSourceRef(ref, opts.cwd), {
    insecure: opts.insecure === true,
    deadline,
    ...(opts.progress ? { progress: opts.progress } : {}),
    ...(entry.resolved !== undefined ? { expectResolved: entry.resolved } : {}),
    // a drafted manifest is drafted again from the same source; the digests below hold it to the pin
    ...(entry.manifestFile !== undefined ? { manifestFile: entry.manifestFile } : { draft: { source: entry.source } }),
  });
  const pkg = fetched.pkg;
  if (pkg.name !== name || pkg.version !== entry.version)
    throw differs(name, `${ref} holds ${pkg.name}@${pkg.version}, the lockfile pins ${name}@${entry.version}`);
  if (!sameDigests(entry.digests, pkg.digests as Record<string, string>)) {
    const files = [...new Set([...Object.keys(entry.digests), ...Object.keys(pkg.digests)])].filter(
      (f) => entry.digests[f] !== (pkg.digests as Record<string, string>)[f],
    );
    throw differs(name, `${ref}: ${files.join(', ')} differ from the digests the lockfile pins`);
  }
  if (installedManifestDigest(layout, pkg) !== entry.installedManifest)
    throw differs(name, 'the installed manifest would differ from the one the lockfile pins');
  const changed = entry.model ? modelChanges(entry.model, pkg.manifest.model) : [];
  if (changed.length > 0)
    throw differs(name, `what the model reads differs from the lockfile pin (${changed.join(', ')})`);
  const verdict = await judgeSignature(pkg, layout.trust);
  if (entry.signer) {
    if (verdict.kind !== 'trusted' || verdict.keyId !== entry.signer.keyId) {
      throw new RegistryError(
        verdict.kind === 'unsigned' ? 'UNSIGNED' : 'UNKNOWN_SIGNER',
        `${name}@${entry.version}: the lockfile pins it as signed by ${entry.signer.name} (${entry.signer.keyId}); trust that key first (\`toolgate trust add\`)`,
      );
    }
  } else {
    const warning = requireTrust(pkg, verdict, opts.allowUnsigned === true);
    if (warning) opts.say(`\n!!! ${warning}\n\n`);
  }
  return { pkg, verdict };
}

/**
 * A hyper-mcp module is run (under its manifest's limits, after the ceiling allowed those) and what
 * it describes is held to the lockfile's pin like every other byte; its flags to the ceiling.
 */
async function describePinned(
  name: string,
  entry: LockEntry,
  pkg: ToolPackage,
  layout: StoreLayout,
  opts: LockedInstallOptions,
): Promise<void> {
  if (pkg.manifest.module.abi !== 'hyper-mcp') return;
  await describePackage(layout, pkg, installedManifestText(layout, pkg));
  const changed =
    entry.described !== undefined && pkg.described !== undefined
      ? describedChanges(entry.described, pkg.described.pin)
      : [];
  if (changed.length > 0)
    throw differs(name, `what its module describes differs from the lockfile pin (${changed.join('; ')})`);
  await enforceCeiling(pkg, opts, layout);
}

const TRUST_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const KEY_ID = /^ed25519:[0-9a-f]{16}$/;

/**
 * UNKNOWN_SIGNER, naming each signer the lockfile pins that this store does not trust and the
 * command that trusts it, before anything is downloaded.
 */
async function requirePinnedSignersTrusted(plans: readonly Plan[], trustFile: string, lockfile: string): Promise<void> {
  const untrusted = new Map<string, { name: string; tools: string[] }>();
  for (const p of plans) {
    const signer = p.entry.signer;
    if (!signer || (await findTrustedByKeyId(trustFile, signer.keyId))) continue;
    // The lockfile may come from anywhere: only a plain key id and trust name are echoed as given.
    const keyId = KEY_ID.test(signer.keyId) ? signer.keyId : JSON.stringify(signer.keyId);
    const name = TRUST_NAME.test(signer.name) ? signer.name : 'publisher';
    const seen = untrusted.get(keyId) ?? { name, tools: [] };
    seen.tools.push(`${p.name}@${p.entry.version}`);
    untrusted.set(keyId, seen);
  }
  if (untrusted.size === 0) return;
  const which = [...untrusted].map(
    ([keyId, s]) =>
      `${s.tools.join(', ')}: the lockfile pins ${s.tools.length > 1 ? 'them' : 'it'} as signed by ${s.name} (${keyId})`,
  );
  const commands = [...untrusted.values()].map((s) => `\`toolgate trust add ${s.name} ${s.name}.key.pub\``);
  throw new RegistryError(
    'UNKNOWN_SIGNER',
    `${which.join('; ')}, a key this store (${trustFile}) does not trust; nothing was downloaded. ` +
      `Trust the publisher's public key first (${commands.join(', ')}, with the .pub file the publisher gives you), then run install --locked ${lockfile} again`,
  );
}

function outcomeOf(
  name: string,
  entry: LockEntry,
  before: LockEntry | undefined,
  opts: LockedInstallOptions,
): LockedTool['outcome'] {
  if (!before) return 'installed';
  const order = compareVersionText(entry.version, before.version);
  if (order === 0 && !sameDigests(before.digests, entry.digests)) {
    throw new RegistryError(
      'VERSION_CONFLICT',
      `${name}@${entry.version}: the installed ${name}@${before.version} has different contents; uninstall it first`,
    );
  }
  if (order < 0 && opts.allowDowngrade !== true) {
    throw new RegistryError(
      'DOWNGRADE',
      `${name}: the lockfile pins ${entry.version}, lower than the installed ${before.version}; pass --allow-downgrade to go back`,
    );
  }
  return order < 0 ? 'downgraded' : order > 0 ? 'upgraded' : 'installed';
}

export async function installLocked(opts: LockedInstallOptions): Promise<LockedTool[]> {
  const wanted = await readWanted(opts.lockfile);
  const layout = await withStore(opts.home, async (l) => l);
  const current = await readLock(layout.lock);
  const plans: Plan[] = [];
  const fetching: Plan[] = [];
  for (const name of Object.keys(wanted.tools).sort()) {
    const entry = ownEntry(wanted.tools, name) as LockEntry;
    const before = ownEntry(current.tools, name);
    if (before && sameEntry(before, entry) && (await checkInstalled(layout, name, before)).length === 0) {
      plans.push({ name, version: entry.version, outcome: 'unchanged', entry, before });
      continue;
    }
    const plan: Plan = { name, version: entry.version, outcome: outcomeOf(name, entry, before, opts), entry, before };
    plans.push(plan);
    fetching.push(plan);
  }
  // The signers the lockfile pins are known before any byte is fetched: an untrusted one fails
  // here, not after every download (the fetched signature is still checked below).
  await requirePinnedSignersTrusted(fetching, layout.trust, opts.lockfile);
  // one deadline for every download of the run, as for one install
  const deadline = deadlineIn(opts.timeoutMs ?? INSTALL_TIMEOUT_MS);
  for (const plan of fetching) {
    const { pkg, verdict } = await fetchPinned(plan.name, plan.entry, layout, opts, deadline);
    await enforceCeiling(pkg, opts, layout);
    await describePinned(plan.name, plan.entry, pkg, layout, opts);
    plan.pkg = pkg;
    plan.verdict = verdict;
  }
  for (const name of Object.keys(current.tools)) {
    if (!(name in wanted.tools)) opts.say(`${name}: installed but not in ${opts.lockfile} (left as it is)\n`);
  }
  const todo = plans.filter((p) => p.pkg !== undefined);
  for (const p of todo) {
    const pkg = p.pkg as ToolPackage;
    const signer = p.verdict ? `${p.name}@${p.version}: ${signerLine(p.verdict)}\n` : '';
    opts.say(
      `${p.name}@${p.version} (${pinnedRefOf(p.name, p.entry)}) asks for:\n${pkg.manifest.described.map((l) => `  ${l}\n`).join('')}${describedReview(pkg)}${signer}${flagLines(pkg)}`,
    );
  }
  if (todo.length > 0)
    await requireConsent(
      opts.lockfile,
      `Install ${todo.length} tool(s) exactly as ${opts.lockfile} pins them? [y/N] `,
      'the capabilities',
      opts,
    );

  await withStore(opts.home, async (held) => {
    const now = await readLock(held.lock);
    for (const p of todo) {
      if (JSON.stringify(ownEntry(now.tools, p.name) ?? null) !== JSON.stringify(p.before ?? null)) {
        throw new RegistryError(
          'STORE_CHANGED',
          `${p.name}: the store changed while this install was waiting; run it again`,
        );
      }
    }
    for (const p of todo) {
      const { digests: _d, installedManifest: _m, signer: _s, ...rest } = p.entry;
      const signer =
        p.verdict?.kind === 'trusted'
          ? { keyId: p.verdict.keyId, name: p.verdict.name, signature: p.verdict.signature }
          : null;
      await commitInstall(held, p.pkg as ToolPackage, { ...rest, signer }, opts.pause);
    }
  });
  return plans.map(({ name, version, outcome }) => ({ name, version, outcome }));
}
