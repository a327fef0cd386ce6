// OCI registries (distribution API v2) in the CNCF wasm artifact layout: config
// application/vnd.wasm.config.v0+json, the module as an application/wasm layer, the toolgate manifest
// as an application/vnd.toolgate.manifest.v1+yaml layer (and the README as a markdown layer). The
// signature rides as manifest annotations (distribution 2.8 has no referrers API). Artifacts with a
// module and no toolgate manifest (a plain wasm artifact, a hyper-mcp plugin as an ORAS artifact or
// a plugin image) install with a manifest the user supplies or one drafted (oci-shapes.ts, plain.ts).
import { digestOf } from './digest.js';
import { RegistryError } from './errors.js';
import { checkRedirect, fetchBytes, header, send, type Deadline, type Progress } from './http.js';
import { pluginFromLayers } from './image-layer.js';
import { MANIFEST_TYPES, resolveManifest, type ImageManifest } from './oci-index.js';
import type { OciRef } from './oci-ref.js';
import { shapeOf, shapeWords, TOOL_MANIFEST_LAYER, WASM_CONFIG, WASM_LAYER, type ArtifactShape } from './oci-shapes.js';
import { manifestNeeded, moduleOnlyPackage, type ModulePackage } from './plain.js';
import {
  assemblePackage,
  expectDigests,
  MANIFEST_FILE,
  MODULE_FILE,
  PACKAGE_LIMITS,
  README_FILE,
  type PackageFileName,
  type ToolPackage,
} from './package.js';
import { isLinkFile } from './package-modules.js';

export const OCI_MEDIA = {
  manifest: MANIFEST_TYPES.image,
  config: WASM_CONFIG,
  module: WASM_LAYER,
  toolManifest: TOOL_MANIFEST_LAYER,
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

function baseUrl(ref: OciRef, insecure: boolean): string {
  const host = ref.registry.split(':')[0] ?? '';
  const plain = insecure || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
  return `${plain ? 'http' : 'https'}://${ref.registry}/v2/${ref.repository}`;
}

export { parseOciRef, type OciRef } from './oci-ref.js';

export interface PulledPackage {
  pkg: ToolPackage;
  manifestDigest: string;
  /** The manifest was drafted for a plugin that came without one. */
  drafted: boolean;
}

type BlobFetch = (digest: string, size: number, what: string) => Promise<Buffer>;

/**
 * An artifact with a module and no toolgate manifest: refused unless the user supplied a manifest
 * or a draft may be made (decided from the image manifest alone, before any blob is downloaded).
 */
async function moduleArtifact(
  ref: OciRef,
  manifest: ImageManifest,
  shape: Exclude<ArtifactShape, { kind: 'package' }>,
  opts: PullOptions,
  blob: BlobFetch,
): Promise<ModulePackage> {
  if (opts.manifestFile === undefined && opts.draftFrom === undefined)
    throw manifestNeeded(ref.text, shapeWords(shape, manifest));
  await blob(manifest.config.digest, manifest.config.size, 'config');
  let bytes: Uint8Array;
  if (shape.kind === 'module') bytes = await blob(shape.layer.digest, shape.layer.size, MODULE_FILE);
  else {
    const layers = [];
    for (const l of shape.layers)
      layers.push({ digest: l.digest, gzip: l.gzip, bytes: await blob(l.digest, l.size, `layer ${l.digest}`) });
    bytes = pluginFromLayers(layers, ref.text);
  }
  return moduleOnlyPackage(
    bytes,
    {
      ...(opts.manifestFile !== undefined
        ? { manifestFile: opts.manifestFile }
        : opts.draftFrom !== undefined
          ? { draftFrom: opts.draftFrom }
          : {}),
      hyperMcp: shape.kind === 'image' || shape.hyperMcp,
    },
    ref.text,
  );
}

export interface PullOptions {
  insecure: boolean;
  progress?: Progress;
  /** The install's overall deadline (install --timeout). */
  deadline?: Deadline;
  /** A toolgate manifest for an artifact without one (install --manifest). */
  manifestFile?: string;
  /** Without --manifest: draft a hyper-mcp manifest named after this reference. */
  draftFrom?: string;
}

export async function pullOci(ref: OciRef, opts: PullOptions): Promise<PulledPackage> {
  const base = baseUrl(ref, opts.insecure);
  const { manifest, digest } = await resolveManifest(ref, base, opts.insecure, opts.deadline);
  const shape = shapeOf(manifest, ref.text);
  refuseDeclaredSizes(ref, manifest, shape);
  const blob: BlobFetch = (digest, size, what) =>
    fetchBytes(`${base}/blobs/${digest}`, {
      what: `${ref.text}: ${what}`,
      insecure: opts.insecure,
      maxBytes: PACKAGE_LIMITS.maxTotalBytes,
      expectDigest: digest,
      expectSize: size,
      ...(opts.progress ? { progress: opts.progress } : {}),
      ...(opts.deadline ? { deadline: opts.deadline } : {}),
    }).then((f) => f.bytes);

  if (shape.kind !== 'package')
    return { ...(await moduleArtifact(ref, manifest, shape, opts, blob)), manifestDigest: digest };
  if (opts.manifestFile !== undefined) {
    throw new RegistryError(
      'BAD_REFERENCE',
      `${ref.text}: is a toolgate package with its own ${OCI_MEDIA.toolManifest} layer; --manifest is only for plain wasm artifacts`,
    );
  }
  await blob(manifest.config.digest, manifest.config.size, 'config');
  const files: Partial<Record<PackageFileName, Uint8Array>> = {};
  const declared: Record<string, string> = {};
  for (const layer of manifest.layers) {
    const file = layerFile(ref, layer);
    if (file === undefined) continue; // layers of other tools are not ours to read
    if (declared[file] !== undefined)
      throw new RegistryError('BAD_PACKAGE', `${ref.text}: two layers of type ${layer.mediaType}`);
    declared[file] = layer.digest;
    files[file] = await blob(layer.digest, layer.size, file);
  }
  const signer = manifest.annotations?.[OCI_ANNOTATIONS.signer];
  const signature = manifest.annotations?.[OCI_ANNOTATIONS.signature];
  const pkg = assemblePackage(files, signer && signature ? { signer, signature } : undefined, ref.text);
  expectDigests(pkg, declared, `${ref.text} (layers)`);
  return { pkg, manifestDigest: digest, drafted: false };
}

/** A config blob is a few hundred bytes (toolgate's is `{}`, an image's its history): more is refused. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * What the manifest declares is held to the package's limits before any blob is requested: each
 * blob is read into memory, so a manifest listing many layers of 64 MiB each (the per-blob cap)
 * would otherwise hold gigabytes before the package's own size check saw them.
 */
function refuseDeclaredSizes(ref: OciRef, manifest: ImageManifest, shape: ArtifactShape): void {
  if (manifest.config.size > MAX_CONFIG_BYTES)
    throw new RegistryError(
      'TOO_LARGE',
      `${ref.text}: the config blob is declared as ${manifest.config.size} bytes, more than ${MAX_CONFIG_BYTES}`,
    );
  const read =
    shape.kind === 'module'
      ? [shape.layer]
      : shape.kind === 'image'
        ? shape.layers
        : manifest.layers.filter((l) => l.mediaType === OCI_MEDIA.link || LAYER_FILES[l.mediaType] !== undefined);
  const total = read.reduce((n, l) => n + l.size, manifest.config.size);
  if (total > PACKAGE_LIMITS.maxTotalBytes)
    throw new RegistryError(
      'TOO_LARGE',
      `${ref.text}: the blobs to download are declared as ${total} bytes in all, more than the package limit of ${PACKAGE_LIMITS.maxTotalBytes}`,
    );
}

/** The package file a layer holds; undefined for layers of other tools. */
function layerFile(ref: OciRef, layer: ImageManifest['layers'][number]): PackageFileName | undefined {
  if (layer.mediaType !== OCI_MEDIA.link) return LAYER_FILES[layer.mediaType];
  const title = layer.annotations?.[OCI_ANNOTATIONS.title] ?? '';
  if (!isLinkFile(title))
    throw new RegistryError(
      'BAD_PACKAGE',
      `${ref.text}: a ${OCI_MEDIA.link} layer must be titled link-<n>.wasm (is ${JSON.stringify(title)})`,
    );
  return title;
}

async function pushBlob(ref: OciRef, base: string, bytes: Uint8Array, insecure: boolean): Promise<void> {
  const digest = digestOf(bytes);
  const head = await send('HEAD', `${base}/blobs/${digest}`, { what: `${ref.text}: blob ${digest}`, insecure });
  if (head.status === 200) return;
  const start = await send('POST', `${base}/blobs/uploads/`, { what: `${ref.text}: start upload`, insecure });
  const location = header(start.headers, 'location');
  if (start.status !== 202 || !location)
    throw new RegistryError(
      'NETWORK',
      `${ref.text}: upload start answered HTTP ${start.status}: ${start.text.slice(0, 200)}`,
    );
  // The registry names where the bytes go: held to the rule of a redirect, so an https registry
  // cannot hand the upload to plain http (docs/decisions.md, "Registry transport: no downgrade").
  const startUrl = new URL(`${base}/blobs/uploads/`);
  const url = new URL(location, startUrl);
  checkRedirect(startUrl, url, insecure, 'hands the upload to');
  url.searchParams.set('digest', digest);
  const put = await send('PUT', url.href, {
    what: `${ref.text}: upload ${digest}`,
    insecure,
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(bytes.byteLength) },
    body: bytes,
  });
  if (put.status !== 201)
    throw new RegistryError(
      'NETWORK',
      `${ref.text}: blob upload answered HTTP ${put.status}: ${put.text.slice(0, 200)}`,
    );
}

/** Pushes a package as a wasm artifact and tags it; returns the manifest digest. */
export async function pushOci(ref: OciRef, pkg: ToolPackage, opts: { insecure: boolean }): Promise<string> {
  if (ref.reference.startsWith('sha256:'))
    throw new RegistryError('BAD_REFERENCE', `${ref.text}: publish needs a tag, not a digest`);
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
  if (put.status !== 201)
    throw new RegistryError(
      'NETWORK',
      `${ref.text}: manifest upload answered HTTP ${put.status}: ${put.text.slice(0, 300)}`,
    );
  return digestOf(manifest);
}
