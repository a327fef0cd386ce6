// The static HTTP index: one index.json (tools -> versions -> {url, digest, files, signature, signer})
// beside the package .tgz files it points at. Any static file server can host it; `publish --to DIR`
// writes one. Format: docs/registry.md.
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { digestOf } from './digest.js';
import { parseJsonDocument, RegistryError } from './errors.js';
import { replaceFile } from './fs-atomic.js';
import { checkRedirect, fetchBytes, type Deadline, type Progress } from './http.js';
import { expectDigests, packageFromTgz, packageToTgz, PACKAGE_LIMITS, type ToolPackage } from './package.js';
import { isVersion, maxSatisfying, parseRange } from './semver.js';
import { ownEntry } from './own.js';

const entrySchema = z.strictObject({
  /** Relative to index.json, or absolute. */
  url: z.string().min(1),
  /** Digest of the .tgz. */
  digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  files: z.record(z.string(), z.string().regex(/^sha256:[0-9a-f]{64}$/)),
  signer: z.string().optional(),
  signature: z.string().optional(),
});
const indexSchema = z.strictObject({
  format: z.literal('toolgate-index/v1'),
  tools: z.record(
    z.string(),
    z.strictObject({ versions: z.record(z.string().refine(isVersion, 'must be a semver version'), entrySchema) }),
  ),
});
export type IndexFile = z.infer<typeof indexSchema>;
export type IndexEntry = z.infer<typeof entrySchema>;

export interface IndexRef {
  indexUrl: string;
  name: string;
  range: string;
  text: string;
}

/** `https://host/path/index.json#name@range` (range optional = the highest version). */
export function parseIndexRef(text: string): IndexRef {
  const hash = text.indexOf('#');
  if (hash < 0)
    throw new RegistryError('BAD_REFERENCE', `${text}: an index reference needs #<tool>[@<range>] after the index URL`);
  const fragment = decodeURIComponent(text.slice(hash + 1));
  const at = fragment.indexOf('@');
  const name = at < 0 ? fragment : fragment.slice(0, at);
  const range = at < 0 ? '*' : fragment.slice(at + 1);
  if (!/^[a-z][a-z0-9_]{0,63}$/.test(name))
    throw new RegistryError('BAD_REFERENCE', `${text}: "${name}" is not a tool name`);
  if (parseRange(range) === undefined)
    throw new RegistryError(
      'BAD_REFERENCE',
      `${text}: "${range}" is not a version range (npm ranges: 1.2.3, ^1.2, ~1.2, 1.x, 1.0.0 - 2.0.0, ^1 || ^2, >=1.0.0 or *)`,
    );
  return { indexUrl: text.slice(0, hash), name, range, text };
}

function parseIndex(bytes: Uint8Array, where: string): IndexFile {
  return parseJsonDocument(Buffer.from(bytes).toString('utf8'), indexSchema, where, 'BAD_PACKAGE', 'index');
}

export interface PulledFromIndex {
  pkg: ToolPackage;
  /** Digest of the package archive the index entry names. */
  archiveDigest: string;
}

export async function pullFromIndex(
  ref: IndexRef,
  opts: { insecure: boolean; progress?: Progress; expectResolved?: string; deadline?: Deadline },
): Promise<PulledFromIndex> {
  const index = await fetchBytes(ref.indexUrl, {
    what: `index ${ref.indexUrl}`,
    insecure: opts.insecure,
    maxBytes: 16 * 1024 * 1024,
    ...(opts.deadline ? { deadline: opts.deadline } : {}),
  });
  const parsed = parseIndex(index.bytes, ref.indexUrl);
  const tool = ownEntry(parsed.tools, ref.name);
  if (!tool) throw new RegistryError('NOT_FOUND', `${ref.text}: the index has no tool named ${ref.name}`);
  const version = maxSatisfying(Object.keys(tool.versions), ref.range);
  if (version === undefined) {
    throw new RegistryError(
      'NOT_FOUND',
      `${ref.text}: no version of ${ref.name} matches "${ref.range}" (has ${Object.keys(tool.versions).join(', ')})`,
    );
  }
  const entry = tool.versions[version] as IndexEntry;
  if (opts.expectResolved !== undefined && entry.digest !== opts.expectResolved) {
    // Refused before downloading: the index now lists other bytes under this version.
    throw new RegistryError(
      'DIGEST_MISMATCH',
      `${ref.text}: the index lists ${ref.name}@${version} as ${entry.digest}, the lockfile pins ${opts.expectResolved}`,
    );
  }
  // an index read over https that sends the package over plain http is the same downgrade as a redirect
  checkRedirect(new URL(index.url), new URL(entry.url, index.url), opts.insecure, 'lists the package at');
  const url = new URL(entry.url, index.url).href;
  const tgz = await fetchBytes(url, {
    what: `${ref.name}@${version}`,
    insecure: opts.insecure,
    maxBytes: PACKAGE_LIMITS.maxTotalBytes,
    expectDigest: entry.digest,
    ...(opts.progress ? { progress: opts.progress } : {}),
    ...(opts.deadline ? { deadline: opts.deadline } : {}),
  });
  const fromTar = packageFromTgz(tgz.bytes, url);
  if (fromTar.name !== ref.name || fromTar.version !== version) {
    throw new RegistryError(
      'BAD_PACKAGE',
      `${url}: the index lists ${ref.name}@${version} but the package is ${fromTar.name}@${fromTar.version}`,
    );
  }
  expectDigests(fromTar, entry.files, `${ref.indexUrl} (${ref.name}@${version})`);
  // The index entry's signature is authoritative; one inside the archive is only a fallback.
  const signature =
    entry.signer && entry.signature ? { signer: entry.signer, signature: entry.signature } : fromTar.signature;
  const { signature: _dropped, ...unsigned } = fromTar;
  return { pkg: signature ? { ...unsigned, signature } : unsigned, archiveDigest: entry.digest };
}

/** Adds a package to a directory index (dir/index.json + dir/packages/<name>-<version>.tgz). */
export async function publishToDir(
  dirArg: string,
  pkg: ToolPackage,
  opts: { force: boolean },
): Promise<{ indexFile: string; url: string }> {
  const dir = resolve(dirArg);
  const indexFile = join(dir, 'index.json');
  let index: IndexFile = { format: 'toolgate-index/v1', tools: {} };
  try {
    index = parseIndex(await readFile(indexFile), indexFile);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const tgz = packageToTgz(pkg);
  const url = `packages/${pkg.name}-${pkg.version}.tgz`;
  const entry: IndexEntry = {
    url,
    digest: digestOf(tgz),
    files: { ...pkg.digests } as Record<string, string>,
    ...(pkg.signature ? { signer: pkg.signature.signer, signature: pkg.signature.signature } : {}),
  };
  const tool = ownEntry(index.tools, pkg.name) ?? (index.tools[pkg.name] = { versions: {} });
  const existing = ownEntry(tool.versions, pkg.version);
  if (existing && existing.digest !== entry.digest && !opts.force) {
    throw new RegistryError(
      'VERSION_CONFLICT',
      `${indexFile}: ${pkg.name}@${pkg.version} is already published with different contents (publish a new version)`,
    );
  }
  tool.versions[pkg.version] = entry;
  await mkdir(join(dir, 'packages'), { recursive: true });
  await replaceFile(join(dir, url), tgz);
  await replaceFile(indexFile, `${JSON.stringify(index, null, 2)}\n`);
  return { indexFile, url };
}
