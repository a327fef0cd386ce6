// What an OCI image manifest holds, told from the manifest alone before any blob is downloaded
// (docs/registry.md, "Installing hyper-mcp plugins"): a toolgate package (it has a toolgate manifest
// layer), a module artifact (exactly one application/wasm layer: a CNCF wasm artifact, or an ORAS
// artifact such as hyper-mcp publishes with artifact type application/vnd.hyper-mcp.plugin.v2), or
// a container image built FROM scratch whose layer tar holds /plugin.wasm (the other way hyper-mcp
// plugins are published). Only a package carries its own manifest.
import { RegistryError } from './errors.js';
import { PACKAGE_LIMITS } from './package.js';

export const HYPER_MCP_ARTIFACT = 'application/vnd.hyper-mcp.plugin.v2';
export const WASM_CONFIG = 'application/vnd.wasm.config.v0+json';
export const WASM_LAYER = 'application/wasm';
export const TOOL_MANIFEST_LAYER = 'application/vnd.toolgate.manifest.v1+yaml';
/** ORAS's config when it has none to push (image-spec 1.1). */
export const EMPTY_CONFIG = 'application/vnd.oci.empty.v1+json';
const IMAGE_CONFIGS: readonly string[] = [
  'application/vnd.oci.image.config.v1+json',
  'application/vnd.docker.container.image.v1+json',
];
/** Layer media types of an image, and whether the tar is gzipped. */
const TAR_LAYERS: Readonly<Record<string, boolean>> = {
  'application/vnd.oci.image.layer.v1.tar+gzip': true,
  'application/vnd.docker.image.rootfs.diff.tar.gzip': true,
  'application/vnd.oci.image.layer.v1.tar': false,
};
/** A FROM scratch plugin image has one layer; a few more are read, never dozens. */
export const MAX_IMAGE_LAYERS = 8;

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string> | undefined;
}

export interface ManifestParts {
  config: Descriptor;
  layers: Descriptor[];
  artifactType?: string | undefined;
}

export type ArtifactShape =
  | { kind: 'package' }
  | { kind: 'module'; layer: Descriptor; hyperMcp: boolean }
  | { kind: 'image'; layers: Array<Descriptor & { gzip: boolean }> };

const typesOf = (m: ManifestParts): string => m.layers.map((l) => l.mediaType).join(', ') || 'none';

/** The shape of an image manifest; refused (BAD_PACKAGE) when it is none of the three. */
export function shapeOf(m: ManifestParts, where: string): ArtifactShape {
  const bad = (rule: string): RegistryError => new RegistryError('BAD_PACKAGE', `${where}: ${rule}`);
  const config = m.config.mediaType;
  if (m.layers.some((l) => l.mediaType === TOOL_MANIFEST_LAYER)) {
    if (config !== WASM_CONFIG) throw bad(`config media type ${config} is not ${WASM_CONFIG} (not a wasm artifact)`);
    return { kind: 'package' };
  }
  if (IMAGE_CONFIGS.includes(config)) return imageShape(m, where);
  const hyperMcp = m.artifactType === HYPER_MCP_ARTIFACT || config === HYPER_MCP_ARTIFACT;
  if (!hyperMcp && config !== WASM_CONFIG && config !== EMPTY_CONFIG) {
    throw bad(
      `config media type ${config} is not ${WASM_CONFIG} (not a wasm artifact), a hyper-mcp plugin (${HYPER_MCP_ARTIFACT}) or a container image`,
    );
  }
  const modules = m.layers.filter((l) => l.mediaType === WASM_LAYER);
  const layer = modules[0];
  if (modules.length !== 1 || layer === undefined)
    throw bad(`a plain wasm artifact must have exactly one ${WASM_LAYER} layer (layers: ${typesOf(m)})`);
  return { kind: 'module', layer, hyperMcp };
}

function imageShape(m: ManifestParts, where: string): ArtifactShape {
  const bad = (rule: string): RegistryError => new RegistryError('BAD_PACKAGE', `${where}: ${rule}`);
  if (m.layers.length === 0 || m.layers.length > MAX_IMAGE_LAYERS)
    throw bad(`a plugin image must have 1 to ${MAX_IMAGE_LAYERS} layers (has ${m.layers.length})`);
  const total = m.layers.reduce((n, l) => n + l.size, 0);
  if (total > PACKAGE_LIMITS.maxTotalBytes)
    throw new RegistryError(
      'TOO_LARGE',
      `${where}: its layers are ${total} bytes, more than ${PACKAGE_LIMITS.maxTotalBytes}`,
    );
  return {
    kind: 'image',
    layers: m.layers.map((l) => {
      const gzip = TAR_LAYERS[l.mediaType];
      if (gzip === undefined)
        throw bad(
          `layer ${l.digest} has media type ${l.mediaType}; a plugin image's layers must be tar or gzip tar (${Object.keys(TAR_LAYERS).join(', ')})`,
        );
      return { ...l, gzip };
    }),
  };
}

/** What an artifact without a toolgate manifest is, in words for refusals and the review. */
export function shapeWords(shape: ArtifactShape, m: ManifestParts): string {
  if (shape.kind === 'image') return 'is a container image holding a plugin (no toolgate manifest)';
  if (shape.kind === 'module' && shape.hyperMcp)
    return `is a hyper-mcp plugin artifact (${HYPER_MCP_ARTIFACT}) with no toolgate manifest`;
  return `has no ${TOOL_MANIFEST_LAYER} layer (layers: ${typesOf(m)})`;
}
