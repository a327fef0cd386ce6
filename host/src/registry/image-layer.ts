// The module of a plugin image: a container image built FROM scratch with `COPY plugin.wasm
// /plugin.wasm`, whose layer tar therefore holds `plugin.wasm` at its root (docs/registry.md,
// "Installing hyper-mcp plugins"). toolgate takes exactly that file and nothing else: another
// `.wasm` anywhere in the image is a second candidate and the image is refused, so what runs is
// never decided by a ranking the person reviewing it cannot see. Links, devices and path tricks
// (`..`) are refused by name; entry sizes are capped before anything is copied.
import { DEFAULT_MAX_MODULE_BYTES } from '../manifest/index.js';
import { RegistryError } from './errors.js';
import { PACKAGE_LIMITS } from './package.js';
import { gunzip, readTar } from './tar.js';

export const PLUGIN_PATH = '/plugin.wasm';
/** A FROM scratch layer holds a handful of entries. */
const MAX_LAYER_ENTRIES = 256;

export interface ImageLayer {
  digest: string;
  gzip: boolean;
  bytes: Uint8Array;
}

/** The entry's path inside the image: `/`, `./` and empty segments dropped; `..` refused. */
function imagePath(name: string, where: string): string {
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..'))
    throw new RegistryError(
      'BAD_PACKAGE',
      `${where}: entry "${name}" climbs out of the image with ".." (path tricks are refused)`,
    );
  return `/${parts.join('/')}`;
}

/** The regular files of one layer, by image path, each at most a module's size. */
function layerFiles(layer: ImageLayer, where: string): Array<{ path: string; name: string; data: Uint8Array }> {
  const at = `${where}: layer ${layer.digest}`;
  const tar = layer.gzip ? gunzip(layer.bytes, at, PACKAGE_LIMITS.maxTotalBytes + 64 * 1024) : Buffer.from(layer.bytes);
  // one entry over a module's cap is refused by readTar's total before its bytes are copied
  const entries = readTar(
    tar,
    at,
    { maxEntries: MAX_LAYER_ENTRIES, maxTotalBytes: DEFAULT_MAX_MODULE_BYTES },
    { skipDirectories: true, pax: true },
  );
  return entries.map((e) => ({ path: imagePath(e.name, at), name: e.name, data: e.data }));
}

/**
 * The one module of a plugin image: `/plugin.wasm` of its layers, the only `.wasm` file there.
 * A later layer replacing the file is still two candidates (refused).
 */
export function pluginFromLayers(layers: readonly ImageLayer[], where: string): Uint8Array {
  const candidates: Array<{ path: string; name: string; data: Uint8Array }> = [];
  for (const layer of layers) {
    for (const f of layerFiles(layer, where)) if (f.path.toLowerCase().endsWith('.wasm')) candidates.push(f);
  }
  const found = candidates[0];
  if (candidates.length > 1) {
    throw new RegistryError(
      'BAD_PACKAGE',
      `${where}: the image holds more than one wasm candidate (${candidates.map((c) => JSON.stringify(c.name)).join(', ')}); a plugin image must hold exactly ${PLUGIN_PATH}`,
    );
  }
  if (found === undefined || found.path !== PLUGIN_PATH) {
    throw new RegistryError(
      'BAD_PACKAGE',
      `${where}: the image has no ${PLUGIN_PATH}${found ? ` (it holds ${JSON.stringify(found.name)})` : ''}; a hyper-mcp plugin image holds its module at ${PLUGIN_PATH}`,
    );
  }
  return found.data;
}
