// The image manifest a reference names. A tag or digest may name an image index (a Docker
// manifest list): a plugin image built for one platform is then the index's linux/amd64 entry (the
// platform hyper-mcp resolves plugin images for) or its wasip1/wasm one, fetched by its digest.
// The lockfile pins what the reference named (the index's digest), which names the same entry again.
import { z } from 'zod';
import { parseJsonDocument, RegistryError } from './errors.js';
import { fetchBytes, header, type Deadline } from './http.js';
import type { OciRef } from './oci-ref.js';
import { PACKAGE_LIMITS } from './package.js';

export const MANIFEST_TYPES = {
  image: 'application/vnd.oci.image.manifest.v1+json',
  index: 'application/vnd.oci.image.index.v1+json',
  dockerImage: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerList: 'application/vnd.docker.distribution.manifest.list.v2+json',
} as const;
const ACCEPT = Object.values(MANIFEST_TYPES).join(', ');
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
/** Platforms a plugin image may be built for, in the order an index's entries are taken. */
const PLATFORMS = [
  { os: 'linux', architecture: 'amd64' },
  { os: 'wasip1', architecture: 'wasm' },
] as const;

const digest = z.string().regex(/^sha256:[0-9a-f]{64}$/);
const descriptor = z.object({
  mediaType: z.string(),
  digest,
  size: z.number().int().nonnegative(),
  annotations: z.record(z.string(), z.string()).optional(),
});
const imageManifest = z.object({
  schemaVersion: z.literal(2),
  mediaType: z.string().optional(),
  artifactType: z.string().optional(),
  config: descriptor,
  layers: z.array(descriptor).max(PACKAGE_LIMITS.maxEntries + 8),
  annotations: z.record(z.string(), z.string()).optional(),
});
const imageIndex = z.object({
  schemaVersion: z.literal(2),
  mediaType: z.string().optional(),
  manifests: z
    .array(descriptor.extend({ platform: z.object({ os: z.string(), architecture: z.string() }).optional() }))
    .max(64),
});
export type ImageManifest = z.infer<typeof imageManifest>;

const isIndex = (mediaType: string | undefined, body: unknown): boolean =>
  mediaType === MANIFEST_TYPES.index ||
  mediaType === MANIFEST_TYPES.dockerList ||
  (typeof body === 'object' && body !== null && 'manifests' in body);

async function fetchManifest(
  ref: OciRef,
  base: string,
  reference: string,
  insecure: boolean,
  deadline: Deadline | undefined,
): Promise<{ text: string; digest: string; mediaType: string | undefined }> {
  const isDigest = reference.startsWith('sha256:');
  const got = await fetchBytes(`${base}/manifests/${reference}`, {
    what: `${ref.text}: manifest${isDigest && reference !== ref.reference ? ` ${reference}` : ''}`,
    insecure,
    maxBytes: MAX_MANIFEST_BYTES,
    headers: { accept: ACCEPT },
    ...(isDigest ? { expectDigest: reference } : {}),
    ...(deadline ? { deadline } : {}),
  });
  const advertised = header(got.headers, 'docker-content-digest');
  if (advertised !== undefined && advertised !== got.digest) {
    throw new RegistryError(
      'DIGEST_MISMATCH',
      `${ref.text}: manifest has digest ${got.digest} but the registry says ${advertised}`,
    );
  }
  return {
    text: got.bytes.toString('utf8'),
    digest: got.digest,
    mediaType: header(got.headers, 'content-type')?.split(';')[0]?.trim(),
  };
}

/** The image manifest `ref` names (through an index when it names one) and the digest it resolved to. */
export async function resolveManifest(
  ref: OciRef,
  base: string,
  insecure: boolean,
  deadline?: Deadline,
): Promise<{ manifest: ImageManifest; digest: string }> {
  const top = await fetchManifest(ref, base, ref.reference, insecure, deadline);
  let body: unknown;
  try {
    body = JSON.parse(top.text);
  } catch {
    body = undefined; // parseJsonDocument below names the JSON error
  }
  if (!isIndex(top.mediaType, body)) {
    return {
      manifest: parseJsonDocument(top.text, imageManifest, `${ref.text}: manifest`, 'BAD_PACKAGE', 'image manifest'),
      digest: top.digest,
    };
  }
  const index = parseJsonDocument(top.text, imageIndex, `${ref.text}: manifest`, 'BAD_PACKAGE', 'image index');
  const entry = PLATFORMS.map((p) =>
    index.manifests.find((m) => m.platform?.os === p.os && m.platform.architecture === p.architecture),
  ).find((m) => m !== undefined);
  if (entry === undefined) {
    const listed =
      index.manifests
        .map((m) => (m.platform ? `${m.platform.os}/${m.platform.architecture}` : 'no platform'))
        .join(', ') || 'none';
    throw new RegistryError(
      'BAD_PACKAGE',
      `${ref.text}: the image index has no linux/amd64 or wasip1/wasm entry (it lists ${listed})`,
    );
  }
  const child = await fetchManifest(ref, base, entry.digest, insecure, deadline);
  const manifest = parseJsonDocument(
    child.text,
    imageManifest,
    `${ref.text}: manifest ${entry.digest}`,
    'BAD_PACKAGE',
    'image manifest',
  );
  return { manifest, digest: top.digest };
}
