// Reading a file a manifest points at (its module, the manifest itself) without trusting it: a
// FIFO would block the reader forever, /dev/zero would fill memory, a symlink could carry a
// publisher's private key into a package. Each is refused from one fstat of the opened descriptor,
// before the content is read.
import { constants } from 'node:fs';
import { open, readlink, realpath, type FileHandle } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { sep } from 'node:path';
import { codeOf, messageOf, ToolgateError } from '../errors/index.js';
import { MIB } from './defaults.js';
import { ManifestError, type ManifestErrorCode } from './errors.js';

/** A module larger than this is refused unless the loader is given another cap. */
export const DEFAULT_MAX_MODULE_BYTES = 64 * MIB;
/** `\0asm` and binary format version 1: every module the sandbox can compile starts with these. */
export const WASM_HEADER: readonly number[] = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

export interface FileRules {
  /** Refused when larger (checked on the opened descriptor, before reading). */
  maxBytes: number;
  /** When set, the file's real path must lie inside this folder (symlinks resolved). */
  within?: string;
}

/** A file refused by a rule; `code` says which kind, `rule` says it in words (naming the file). */
export class FileRuleError extends ToolgateError<ManifestErrorCode> {
  constructor(
    code: ManifestErrorCode,
    readonly rule: string,
  ) {
    super(code, rule);
  }
}

const hasProcFd = existsSync('/proc/self/fd');

function insideOf(dir: string, path: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

function kindOf(st: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
}): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** Resolves `path` and checks it lies inside `within`; returns the path to open. */
async function confined(path: string, within: string): Promise<string> {
  const [real, root] = await Promise.all([realpath(path), realpath(within)]);
  if (!insideOf(root, real)) {
    throw new FileRuleError(
      'MODULE_INVALID',
      `${path} must be inside the tool's folder ${root} (it resolves to ${real})`,
    );
  }
  return real;
}

async function openChecked(path: string, rules: FileRules): Promise<{ handle: FileHandle; size: number }> {
  const target = rules.within === undefined ? path : await confined(path, rules.within);
  // O_NONBLOCK: opening a FIFO must not wait for a writer. O_NOFOLLOW: a confined path was resolved
  // above, so a symlink appearing at its end now is a swap.
  const flags = constants.O_RDONLY | constants.O_NONBLOCK | (rules.within === undefined ? 0 : constants.O_NOFOLLOW);
  const handle = await open(target, flags);
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new FileRuleError('MODULE_INVALID', `${path} must be a regular file (it is ${kindOf(st)})`);
    if (st.size > rules.maxBytes) {
      throw new FileRuleError('MODULE_INVALID', `${path} must be at most ${rules.maxBytes} bytes (it is ${st.size})`);
    }
    if (rules.within !== undefined && hasProcFd) {
      // what the kernel opened, in case a folder on the way was swapped after realpath
      const opened = await readlink(`/proc/self/fd/${handle.fd}`);
      if (!insideOf(await realpath(rules.within), opened)) {
        throw new FileRuleError(
          'MODULE_INVALID',
          `${path} must be inside the tool's folder ${rules.within} (it opened ${opened})`,
        );
      }
    }
    return { handle, size: st.size };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

async function readUpTo(handle: FileHandle, size: number, from: Buffer): Promise<Buffer> {
  const out = Buffer.alloc(size);
  from.copy(out);
  let at = from.length;
  while (at < size) {
    const { bytesRead } = await handle.read(out, at, size - at, at);
    if (bytesRead === 0) break; // shrank while reading: what was there is what gets hashed
    at += bytesRead;
  }
  return at === size ? out : out.subarray(0, at);
}

function translate(path: string, err: unknown): FileRuleError {
  if (err instanceof FileRuleError) return err;
  const code = codeOf(err);
  if (code === 'ENOENT') return new FileRuleError('MODULE_MISSING', `${path} does not exist`);
  if (code === 'ELOOP')
    return new FileRuleError('MODULE_INVALID', `${path} must be a regular file (it is a symlink that was swapped in)`);
  return new FileRuleError('READ_FAILED', `${path} cannot be read: ${messageOf(err)}`);
}

/** Reads a regular file of at most rules.maxBytes. Throws FileRuleError. */
export async function readRegularFile(path: string, rules: FileRules): Promise<Buffer> {
  try {
    const { handle, size } = await openChecked(path, rules);
    try {
      return await readUpTo(handle, size, Buffer.alloc(0));
    } finally {
      await handle.close();
    }
  } catch (err) {
    throw translate(path, err);
  }
}

/** `\0asm` and the component layer's version: a module.abi: component tool (the sandbox checks which abi may load it). */
const COMPONENT_HEADER: readonly number[] = [0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00];

/** Why `bytes` (the start of a file) is not a WebAssembly module or component; undefined when it may be one. */
export function wasmHeaderProblem(bytes: Uint8Array): string | undefined {
  const starts = (header: readonly number[]): boolean =>
    bytes.length >= header.length && header.every((b, i) => bytes[i] === b);
  return starts(WASM_HEADER) || starts(COMPONENT_HEADER)
    ? undefined
    : 'is not a WebAssembly module (a module starts with \\0asm and version 1)';
}

/**
 * Reads a module file: a regular file (no FIFO, device or directory), at most rules.maxBytes,
 * starting with the wasm magic and version; with rules.within, inside that folder. The header is
 * checked before the rest is read. Throws FileRuleError; readManifestModule names the manifest.
 */
export async function readModuleFile(path: string, rules: FileRules): Promise<Buffer> {
  try {
    const { handle, size } = await openChecked(path, rules);
    try {
      const head = Buffer.alloc(Math.min(size, WASM_HEADER.length));
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      const problem = wasmHeaderProblem(head.subarray(0, bytesRead));
      if (problem !== undefined) throw new FileRuleError('MODULE_INVALID', `${path} ${problem}`);
      return await readUpTo(handle, size, head);
    } finally {
      await handle.close();
    }
  } catch (err) {
    throw translate(path, err);
  }
}

/**
 * The one check for every module a manifest names (module.path, and module.link entries): reads it
 * under readModuleFile's rules, or throws ManifestError naming the manifest, the key and the rule.
 */
export async function readManifestModule(
  manifestFile: string,
  key: string,
  path: string,
  rules: FileRules,
): Promise<Buffer> {
  try {
    return await readModuleFile(path, rules);
  } catch (err) {
    const e = err instanceof FileRuleError ? err : translate(path, err);
    const hint = e.code === 'MODULE_MISSING' && rules.within === undefined ? missingModuleHint(path) : '';
    throw new ManifestError(e.code, manifestFile, [{ path: key, rule: `module file ${e.rule}${hint}` }]);
  }
}

/** What to do about a module that is not there: the shipped examples build with `make examples`. */
function missingModuleHint(path: string): string {
  return /[\\/]pdk-examples[\\/]/.test(path)
    ? ' (build the example modules with `make examples`)'
    : ' (build the module first)';
}
