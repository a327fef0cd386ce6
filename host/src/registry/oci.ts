// OCI registries (distribution API v2) in the CNCF wasm artifact layout: config
// application/vnd.wasm.config.v0+json, the module as an application/wasm layer, the toolgate manifest
// as an application/vnd.toolgate.manifest.v1+yaml layer (and the README as a markdown layer). The
// signature rides as manifest annotations (distribution 2.8 has no referrers API).
import { z } from 'zod';
import { digestOf } from './digest.js';
import { parseJsonDocument, RegistryError } from './errors.js';
import { fetchBytes, header, send, type Progress } from './http.js';
import { manifestNeeded, plainPackage } from './plain.js';
import { assemblePackage, expectDigests, MANIFEST_FILE, MODULE_FILE, PACKAGE_LIMITS, README_FILE, type PackageFileName, type ToolPackage } from './package.js';
import { isLinkFile } from './package-modules.js';

export const OCI_MEDIA = {
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.wasm.config.v0+json',
  module: 'application/wasm',
  toolManifest: 'application/vnd.toolgate.manifest.v1+yaml',
  readme: 'text/markdown',
  /** A linked module (module.link); its title annotation is its package file name, link-<n>.wasm. */
  link: 'application/vnd.toolgate.link.v1+wasm',
} as const;

export const OCI_ANNOTATIONS = {
  signer: 'dev.toolgate.signer',
  signature: 'dev.toolgate.signature',
  title: 'org.opencontainers.image.title',
  version: 'org.opencontainers.image.version',
} as const;

const LAYER_FILES: Record<string, PackageFileName> = {
  [OCI_MEDIA.module]: MODULE_FILE,
  [OCI_MEDIA.toolManifest]: MANIFEST_FILE,
  [OCI_MEDIA.readme]: README_FILE,
};

export interface OciRef {
  registry: string;
  repository: string;
  /** A tag or a `sha256:` digest. */
  reference: string;
  text: string;
}

const REPO = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/** `oci://host[:port]/repo/path[:tag|@sha256:hex]` (tag defaults to `latest`). */
export function parseOciRef(text: string): OciRef {
  const bad = (rule: string): RegistryError => new RegistryError('BAD_REFERENCE', `${text}: ${rule}`);
  if (!text.startsWith('oci://')) throw bad('must start with oci://');
  const rest = text.slice('oci://'.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) throw bad('must be oci://host[:port]/repository[:tag]');
  const registry = rest.slice(0, slash);
  let path = rest.slice(slash + 1);
  let reference = 'latest';
  const at = path.indexOf('@');
  if (at >= 0) {
    reference = path.slice(at + 1);
    path = path.slice(0, at);
    if (!/^sha256:[0-9a-f]{64}$/.test(reference)) throw bad('a digest reference must be @sha256:<64 hex>');
  } else {
    const colon = path.lastIndexOf(':');
    if (colon >= 0) {
      reference = path.slice(colon + 1);
      path = path.slice(0, colon);
      if (!TAG.test(reference)) throw bad(`tag "${reference}" is not a valid tag`);
    }
  }
  if (!REPO.test(path)) throw bad(`repository "${path}" is not a valid repository name (lowercase, / separated)`);
  return { registry, repository: path, reference, text };
}

function baseUrl(ref: OciRef, insecure: boolean): string {
  const host = ref.registry.split(':')[0] ?? '';
  const plain = insecure || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
  return `${plain ? 'http' : 'https'}://${ref.registry}/v2/${ref.repository}`;
}

const descriptor = z.object({
  mediaType: z.string(),
  digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  size: z.number().int().nonnegative(),
  annotations: z.record(z.string(), z.string()).optional(),
});
const imageManifest = z.object({
  schemaVersion: z.literal(2),
  mediaType: z.string().optional(),
  config: descriptor,
  layers: z.array(descriptor).max(PACKAGE_LIMITS.maxEntries),
  annotations: z.record(z.string(), z.string()).optional(),
});

export interface PulledPackage {
  pkg: ToolPackage;
  manifestDigest: string;
}

type ImageManifest = z.infer<typeof imageManifest>;
type BlobFetch = (digest: string, size: number, what: string) => Promise<Buffer>;

/**
 * A wasm artifact without a toolgate manifest layer: refused unless the user supplied a manifest
 * (decided from the image manifest alone, before any layer is downloaded); undefined for a package.
 */
async function plainArtifact(ref: OciRef, manifest: ImageManifest, opts: PullOptions, blob: BlobFetch): Promise<ToolPackage | undefined> {
  if (manifest.layers.some((l) => l.mediaType === OCI_MEDIA.toolManifest)) {
    if (opts.manifestFile !== undefined) {
      throw new RegistryError('BAD_REFERENCE', `${ref.text}: is a toolgate package with its own ${OCI_MEDIA.toolManifest} layer; --manifest is only for plain wasm artifacts`);
    }
    return undefined;
  }
  const types = manifest.layers.map((l) => l.mediaType).join(', ') || 'none';
  if (opts.manifestFile === undefined) throw manifestNeeded(ref.text, `has no ${OCI_MEDIA.toolManifest} layer (layers: ${types})`);
  const modules = manifest.layers.filter((l) => l.mediaType === OCI_MEDIA.module);
  const layer = modules[0];
  if (modules.length !== 1 || layer === undefined) {
    throw new RegistryError('BAD_PACKAGE', `${ref.text}: a plain wasm artifact must have exactly one ${OCI_MEDIA.module} layer (layers: ${types})`);
  }
  await blob(manifest.config.digest, manifest.config.size, 'config');
  const bytes = await blob(layer.digest, layer.size, MODULE_FILE);
  return plainPackage(bytes, opts.manifestFile, ref.text);
}

export interface PullOptions {
  insecure: boolean;
  progress?: Progress;
  /** A toolgate manifest for a plain wasm artifact (install --manifest). */
  manifestFile?: string;
}

export async function pullOci(ref: OciRef, opts: PullOptions): Promise<PulledPackage> {
  const base = baseUrl(ref, opts.insecure);
  const isDigest = ref.reference.startsWith('sha256:');
  const got = await fetchBytes(`${base}/manifests/${ref.reference}`, {
    what: `${ref.text}: manifest`,
    insecure: opts.insecure,
    maxBytes: 4 * 1024 * 1024,
    headers: { accept: OCI_MEDIA.manifest },
    ...(isDigest ? { expectDigest: ref.reference } : {}),
  });
  const advertised = header(got.headers, 'docker-content-digest');
  if (advertised !== undefined && advertised !== got.digest) {
    throw new RegistryError('DIGEST_MISMATCH', `${ref.text}: manifest has digest ${got.digest} but the registry says ${advertised}`);
  }
  const manifest = parseJsonDocument(got.bytes.toString('utf8'), imageManifest, `${ref.text}: manifest`, 'BAD_PACKAGE', 'image manifest');
  if (manifest.config.mediaType !== OCI_MEDIA.config) {
    throw new RegistryError('BAD_PACKAGE', `${ref.text}: config media type ${manifest.config.mediaType} is not ${OCI_MEDIA.config} (not a wasm artifact)`);
  }
  const blob = (digest: string, size: number, what: string): Promise<Buffer> =>
    fetchBytes(`${base}/blobs/${digest}`, {
      what: `${ref.text}: ${what}`,
      insecure: opts.insecure,
      maxBytes: PACKAGE_LIMITS.maxTotalBytes,
      expectDigest: digest,
      expectSize: size,
      ...(opts.progress ? { progress: opts.progress } : {}),
    }).then((f) => f.bytes);

  const plain = await plainArtifact(ref, manifest, opts, blob);
  if (plain) return { pkg: plain, manifestDigest: got.digest };
  await blob(manifest.config.digest, manifest.config.size, 'config');
  const files: Partial<Record<PackageFileName, Uint8Array>> = {};
  const declared: Record<string, string> = {};
  for (const layer of manifest.layers) {
    const file = layerFile(ref, layer);
    if (file === undefined) continue; // layers of other tools are not ours to read
    if (declared[file] !== undefined) throw new RegistryError('BAD_PACKAGE', `${ref.text}: two layers of type ${layer.mediaType}`);
    declared[file] = layer.digest;
    files[file] = await blob(layer.digest, layer.size, file);
  }
  const signer = manifest.annotations?.[OCI_ANNOTATIONS.signer];
  const signature = manifest.annotations?.[OCI_ANNOTATIONS.signature];
  const pkg = assemblePackage(files, signer && signature ? { signer, signature } : undefined, ref.text);
  expectDigests(pkg, declared, `${ref.text} (layers)`);
  return { pkg, manifestDigest: got.digest };
}

/** The package file a layer holds; undefined for layers of other tools. */
function layerFile(ref: OciRef, layer: z.infer<typeof descriptor>): PackageFileName | undefined {
  if (layer.mediaType !== OCI_MEDIA.link) return LAYER_FILES[layer.mediaType];
  const title = layer.annotations?.[OCI_ANNOTATIONS.title] ?? '';
  if (!isLinkFile(title)) throw new RegistryError('BAD_PACKAGE', `${ref.text}: a ${OCI_MEDIA.link} layer must be titled link-<n>.wasm (is ${JSON.stringify(title)})`);
  return title;
}

async function pushBlob(ref: OciRef, base: string, bytes: Uint8Array, insecure: boolean): Promise<void> {
  const digest = digestOf(bytes);
  const head = await send('HEAD', `${base}/blobs/${digest}`, { what: `${ref.text}: blob ${digest}`, insecure });
  if (head.status === 200) return;
  const start = await send('POST', `${base}/blobs/uploads/`, { what: `${ref.text}: start upload`, insecure });
  const location = header(start.headers, 'location');
  if (start.status !== 202 || !location) throw new RegistryError('NETWORK', `${ref.text}: upload start answered HTTP ${start.status}: ${start.text.slice(0, 200)}`);
  const url = new URL(location, base);
  url.searchParams.set('digest', digest);
  const put = await send('PUT', url.href, {
    what: `${ref.text}: upload ${digest}`,
    insecure,
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(bytes.byteLength) },
    body: bytes,
  });
  if (put.status !== 201) throw new RegistryError('NETWORK', `${ref.text}: blob upload answered HTTP ${put.status}: ${put.text.slice(0, 200)}`);
}

/** Pushes a package as a wasm artifact and tags it; returns the manifest digest. */
export async function pushOci(ref: OciRef, pkg: ToolPackage, opts: { insecure: boolean }): Promise<string> {
  if (ref.reference.startsWith('sha256:')) throw new RegistryError('BAD_REFERENCE', `${ref.text}: publish needs a tag, not a digest`);
  const base = baseUrl(ref, opts.insecure);
  const layers: Array<{ mediaType: string; bytes: Uint8Array; title: string }> = [];
  const media: Record<typeof MODULE_FILE | typeof MANIFEST_FILE | typeof README_FILE, string> = {
    [MODULE_FILE]: OCI_MEDIA.module,
    [MANIFEST_FILE]: OCI_MEDIA.toolManifest,
    [README_FILE]: OCI_MEDIA.readme,
  };
  for (const file of [MODULE_FILE, MANIFEST_FILE, README_FILE] as const) {
    const bytes = pkg.files[file];
    if (bytes) layers.push({ mediaType: media[file], bytes, title: file });
  }
  for (const [file, bytes] of Object.entries(pkg.files).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (isLinkFile(file) && bytes) layers.push({ mediaType: OCI_MEDIA.link, bytes, title: file });
  }
  const moduleDigest = pkg.digests[MODULE_FILE] ?? '';
  const config = Buffer.from(JSON.stringify({ architecture: 'wasm', os: 'wasip1', layerDigests: [moduleDigest] }));
  await pushBlob(ref, base, config, opts.insecure);
  for (const layer of layers) await pushBlob(ref, base, layer.bytes, opts.insecure);
  const annotations: Record<string, string> = {
    [OCI_ANNOTATIONS.title]: pkg.name,
    [OCI_ANNOTATIONS.version]: pkg.version,
  };
  if (pkg.signature) {
    annotations[OCI_ANNOTATIONS.signer] = pkg.signature.signer;
    annotations[OCI_ANNOTATIONS.signature] = pkg.signature.signature;
  }
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: OCI_MEDIA.manifest,
      config: { mediaType: OCI_MEDIA.config, digest: digestOf(config), size: config.byteLength },
      layers: layers.map((l) => ({
        mediaType: l.mediaType,
        digest: digestOf(l.bytes),
        size: l.bytes.byteLength,
        annotations: { [OCI_ANNOTATIONS.title]: l.title },
      })),
      annotations,
    }),
  );
  const put = await send('PUT', `${base}/manifests/${ref.reference}`, {
    what: `${ref.text}: manifest`,
    insecure: opts.insecure,
    headers: { 'content-type': OCI_MEDIA.manifest },
    body: manifest,
  });
  if (put.status !== 201) throw new RegistryError('NETWORK', `${ref.text}: manifest upload answered HTTP ${put.status}: ${put.text.slice(0, 300)}`);
  return digestOf(manifest);
}
