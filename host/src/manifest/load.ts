// Manifest files on disk -> LoadedManifest: the validated manifest plus everything it points at
// (module bytes checked against sha256, host directories resolved to real absolute paths).
import { readdir, realpath, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ManifestError, formatKeyPath } from './errors.js';
import { DEFAULT_MAX_MODULE_BYTES, FileRuleError, readManifestModule, readRegularFile } from './module-file.js';
import { MAX_MANIFEST_BYTES } from './parse.js';
import { parseManifestCached } from './parse-cache.js';
import { protectedDirRule } from './protected-dirs.js';
import { withoutSharedNames, type WithheldNames } from './shared-names.js';
import type { Manifest } from './schema.js';
import { readDescribedPin, type DescribedText } from './described-text.js';
import { codeOf, messageOf } from '../errors/index.js';
import { sha256HexOnce } from '../digest/index.js';
import { manifestFilesIn } from '../lazy-yaml/index.js';

export interface LoadedManifest {
  /** Absolute path of the manifest file. */
  file: string;
  manifest: Manifest;
  /** Absolute path of the module (module.path resolved against the manifest's folder). */
  modulePath: string;
  wasm: Uint8Array;
  /** sha256 of `wasm` as lower-case hex (what was loaded, whether or not the manifest pins it). */
  sha256: string;
  /** module.link, in manifest order: each module's bytes as read (sha256 checked when pinned). */
  links: LoadedLink[];
  /** allowed_paths with each host directory resolved to its real absolute path. */
  allowedPaths: Record<string, { host: string; mode: 'ro' | 'rw' }>;
  /**
   * module.abi: hyper-mcp only: the described text pinned beside the manifest (the store writes it
   * at install, described-text.ts); only text that still matches it is served.
   */
  describedPin?: DescribedText;
}

export interface LoadedLink {
  namespace: string;
  /** Absolute path of the module (resolved against the manifest's folder). */
  path: string;
  wasm: Uint8Array;
  sha256: string;
}

export interface LoadFileOptions {
  /** Largest module accepted, in bytes (default DEFAULT_MAX_MODULE_BYTES, 64 MiB). */
  maxModuleBytes?: number;
}

/** A manifest not (yet) on disk: its text and the bytes of the modules it names, by absolute path. */
export interface ManifestInMemory {
  /** Where the manifest will be (relative paths resolve against its folder). */
  file: string;
  text: string;
  modules: ReadonlyMap<string, Uint8Array>;
}

export interface LoadDirsOptions extends LoadFileOptions {
  /** Skip directories that do not exist instead of reporting them (for default search paths). */
  ignoreMissingDirs?: boolean;
}

export interface LoadDirsResult {
  manifests: LoadedManifest[];
  errors: ManifestError[];
  /** Served names each hyper-mcp manifest must not serve: a plain manifest claims them (shared-names.ts). */
  withheld: WithheldNames;
}

/**
 * Loads one manifest and its module. Throws ManifestError naming the file, key path and rule.
 * Local manifests may point at a module anywhere (the examples use ../pdk-examples/...), but it
 * must be a regular, size-capped WebAssembly file (docs/decisions.md).
 */
export async function loadManifestFile(file: string, opts: LoadFileOptions = {}): Promise<LoadedManifest> {
  const abs = resolve(file);
  let text: string;
  try {
    // a regular file, refused when oversized before it is read (a FIFO or /dev/zero never is)
    text = (await readRegularFile(abs, { maxBytes: MAX_MANIFEST_BYTES })).toString('utf8');
  } catch (err) {
    const rule = err instanceof FileRuleError ? err.rule.replace(`${abs} `, '') : `cannot be read: ${messageOf(err)}`;
    const code = err instanceof FileRuleError && err.code === 'MODULE_INVALID' ? 'INVALID_MANIFEST' : 'READ_FAILED';
    throw new ManifestError(code, abs, [{ path: '', rule }]);
  }
  const loaded = await manifestFromText(abs, text, opts);
  // a pin beside the manifest holds what its module may describe (described-text.ts)
  if (loaded.manifest.module.abi !== 'hyper-mcp') return loaded;
  const pin = await readDescribedPin(abs);
  return pin === undefined ? loaded : { ...loaded, describedPin: pin };
}

/**
 * A manifest given as text with its modules' bytes, checked and resolved as if read from `file`:
 * how the registry describes a package's module before it is installed (docs/registry.md).
 */
export async function loadManifestText(input: ManifestInMemory, opts: LoadFileOptions = {}): Promise<LoadedManifest> {
  return manifestFromText(resolve(input.file), input.text, { ...opts, modules: input.modules });
}

async function manifestFromText(
  abs: string,
  text: string,
  opts: LoadFileOptions & { modules?: ReadonlyMap<string, Uint8Array> },
): Promise<LoadedManifest> {
  const manifest = await parseManifestCached(text, abs);
  const dir = dirname(abs);

  const maxBytes = opts.maxModuleBytes ?? DEFAULT_MAX_MODULE_BYTES;
  const main = await readModule(
    abs,
    resolve(dir, manifest.module.path),
    'module',
    manifest.module.sha256,
    maxBytes,
    opts.modules,
  );
  const links: LoadedLink[] = [];
  for (const link of manifest.module.link ?? []) {
    const keyPath = formatKeyPath(['module', 'link', link.namespace]);
    const file = await readModule(abs, resolve(dir, link.path), keyPath, link.sha256, maxBytes, opts.modules);
    links.push({ namespace: link.namespace, path: file.path, wasm: file.wasm, sha256: file.sha256 });
  }

  const allowedPaths: LoadedManifest['allowedPaths'] = {};
  for (const [guest, grant] of Object.entries(manifest.capabilities.allowed_paths)) {
    allowedPaths[guest] = {
      host: await resolveHostDir(abs, dir, manifest.name, guest, grant.host, grant.mode),
      mode: grant.mode,
    };
  }
  return { file: abs, manifest, modulePath: main.path, wasm: main.wasm, sha256: main.sha256, links, allowedPaths };
}

/**
 * Reads one module file (the main one, key `module`, or one of module.link) and checks its pinned
 * sha256. `key` is the manifest key path errors name (module.path / module.sha256 for the main one).
 */
async function readModule(
  file: string,
  path: string,
  key: string,
  expected: string | undefined,
  maxBytes: number,
  given?: ReadonlyMap<string, Uint8Array>,
): Promise<{ path: string; wasm: Uint8Array; sha256: string }> {
  // a regular file, size-capped, with the wasm magic: the same check for the main and linked modules
  // (bytes given in memory were read under the registry's rules and are checked against sha256 here)
  const held = given?.get(path);
  const bytes =
    held !== undefined
      ? Buffer.from(held.buffer, held.byteOffset, held.byteLength)
      : await readManifestModule(file, key === 'module' ? 'module.path' : key, path, { maxBytes });
  // the view handed on is the array hashed, so the sandbox finds this digest instead of hashing again
  const wasm = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sha256 = sha256HexOnce(wasm);
  if (expected !== undefined && expected !== sha256) {
    throw new ManifestError('SHA256_MISMATCH', file, [
      {
        path: key === 'module' ? 'module.sha256' : `${key}.sha256`,
        rule: `does not match ${path}: expected ${expected}, actual ${sha256}`,
      },
    ]);
  }
  return { path, wasm, sha256 };
}

// The sandbox confines a mount to this real path, so symlinks in the manifest's own path are
// resolved once here and cannot be swapped later to widen the mount.
async function resolveHostDir(
  file: string,
  dir: string,
  tool: string,
  guest: string,
  host: string,
  mode: 'ro' | 'rw',
): Promise<string> {
  const keyPath = formatKeyPath(['capabilities', 'allowed_paths', guest, 'host']);
  const wanted = resolve(dir, host);
  let real: string;
  try {
    real = await realpath(wanted);
  } catch (err) {
    const rule =
      codeOf(err) === 'ENOENT' ? `directory ${wanted} does not exist` : `cannot resolve ${wanted}: ${messageOf(err)}`;
    throw new ManifestError('PATH_INVALID', file, [{ path: keyPath, rule }]);
  }
  const info = await stat(real);
  if (!info.isDirectory())
    throw new ManifestError('PATH_INVALID', file, [{ path: keyPath, rule: `${wanted} must be a directory` }]);
  const refused = await protectedDirRule(real, tool, process.env, mode);
  if (refused !== undefined) throw new ManifestError('PATH_INVALID', file, [{ path: keyPath, rule: refused }]);
  return real;
}

/**
 * Loads every *.yaml / *.yml directly in each directory (not recursive), or the manifest file named,
 * in the order given and then file-name order. A bad manifest is reported and skipped; a tool name
 * two manifests claim is reported for each and neither is kept (shared-names.ts).
 */
export async function loadManifestDirs(dirs: string[], opts: LoadDirsOptions = {}): Promise<LoadDirsResult> {
  const manifests: LoadedManifest[] = [];
  const errors: ManifestError[] = [];
  for (const d of dirs) {
    const dir = resolve(d);
    let files: string[];
    try {
      // A manifest file named directly is loaded as it is (docs/cli.md: --manifests takes files too).
      files = (await stat(dir)).isDirectory()
        ? manifestFilesIn(dir, await readdir(dir, { withFileTypes: true }))
        : [dir];
    } catch (err) {
      if (codeOf(err) === 'ENOENT' && opts.ignoreMissingDirs === true) continue;
      const rule =
        codeOf(err) === 'ENOENT'
          ? 'manifest directory does not exist'
          : `manifest directory cannot be read: ${messageOf(err)}`;
      errors.push(
        new ManifestError(codeOf(err) === 'ENOENT' ? 'DIR_MISSING' : 'READ_FAILED', dir, [{ path: '', rule }]),
      );
      continue;
    }
    for (const file of files) {
      try {
        manifests.push(await loadManifestFile(file, opts));
      } catch (err) {
        errors.push(
          err instanceof ManifestError
            ? err
            : new ManifestError('READ_FAILED', file, [{ path: '', rule: messageOf(err) }]),
        );
      }
    }
  }
  const unshared = withoutSharedNames(manifests);
  return { ...unshared, errors: [...errors, ...unshared.errors] };
}
