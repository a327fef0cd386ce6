// A minimal ustar writer/reader for packages (regular files only) plus gzip from node:zlib.
// Deterministic output: entries sorted by name, mtime 0, uid/gid 0, mode 0644, so the same package
// always packs to the same bytes (and the same digest).
import { gunzipSync, gzipSync } from 'node:zlib';
import { RegistryError } from './errors.js';
import { messageOf } from '../errors/index.js';

export interface TarEntry {
  name: string;
  data: Uint8Array;
}

const BLOCK = 512;

function writeString(header: Buffer, offset: number, length: number, value: string): void {
  header.write(value, offset, Math.min(length, Buffer.byteLength(value)), 'utf8');
}

function writeOctal(header: Buffer, offset: number, length: number, value: number): void {
  // length-1 octal digits, then NUL
  writeString(header, offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
}

function headerFor(name: string, size: number): Buffer {
  if (Buffer.byteLength(name) > 100)
    throw new RegistryError('BAD_PACKAGE', `tar: entry name "${name}" is longer than 100 bytes`);
  const h = Buffer.alloc(BLOCK, 0);
  writeString(h, 0, 100, name);
  writeOctal(h, 100, 8, 0o644);
  writeOctal(h, 108, 8, 0);
  writeOctal(h, 116, 8, 0);
  writeOctal(h, 124, 12, size);
  writeOctal(h, 136, 12, 0);
  h.fill(0x20, 148, 156); // checksum field counts as spaces while summing
  h.write('0', 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  let sum = 0;
  for (const byte of h) sum += byte;
  writeString(h, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return h;
}

export function writeTar(entries: readonly TarEntry[]): Buffer {
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const parts: Buffer[] = [];
  for (const entry of sorted) {
    parts.push(headerFor(entry.name, entry.data.byteLength));
    parts.push(Buffer.from(entry.data));
    const pad = (BLOCK - (entry.data.byteLength % BLOCK)) % BLOCK;
    if (pad > 0) parts.push(Buffer.alloc(pad, 0));
  }
  parts.push(Buffer.alloc(BLOCK * 2, 0));
  return Buffer.concat(parts);
}

function readString(block: Buffer, offset: number, length: number): string {
  const slice = block.subarray(offset, offset + length);
  const end = slice.indexOf(0);
  return slice.subarray(0, end < 0 ? length : end).toString('utf8');
}

function readOctal(block: Buffer, offset: number, length: number, where: string): number {
  const text = readString(block, offset, length).trim();
  if (!/^[0-7]*$/.test(text)) throw new RegistryError('BAD_PACKAGE', `${where}: bad octal field "${text}"`);
  return text === '' ? 0 : parseInt(text, 8);
}

export interface TarLimits {
  maxEntries: number;
  maxTotalBytes: number;
}

/** How a layer of a container image may differ from a package archive (oci-image.ts reads those). */
export interface TarDialect {
  /** Directory entries are skipped rather than refused (image layers hold `./` and the like). */
  skipDirectories?: boolean;
  /** PAX extended headers are read: a `path` record names the next entry; `g` headers are skipped. */
  pax?: boolean;
}

const TYPE_NAMES: Record<string, string> = {
  '1': 'a hard link',
  '2': 'a symbolic link',
  '3': 'a character device',
  '4': 'a block device',
  '5': 'a directory',
  '6': 'a FIFO',
  '7': 'a contiguous file',
  x: 'a PAX extended header',
  g: 'a PAX global header',
  L: 'a GNU long name',
  K: 'a GNU long link name',
};

interface RawHeader {
  name: string;
  type: string;
  size: number;
  at: string;
}

function readHeader(block: Buffer, where: string): RawHeader {
  const name = readString(block, 0, 100);
  const prefix = readString(block, 345, 155);
  const fullName = prefix === '' ? name : `${prefix}/${name}`;
  const at = `${where}: entry "${fullName}"`;
  const stored = readOctal(block, 148, 8, at);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (block[i] ?? 0);
  if (sum !== stored) throw new RegistryError('BAD_PACKAGE', `${at}: header checksum mismatch`);
  return { name: fullName, type: String.fromCharCode(block[156] ?? 0), size: readOctal(block, 124, 12, at), at };
}

/** The records of a PAX extended header ("<len> key=value\n" each); a size record is refused. */
function paxPath(data: Buffer, at: string): string | undefined {
  let path: string | undefined;
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    const length = space < 0 ? NaN : Number(data.subarray(offset, space).toString('ascii'));
    if (!Number.isInteger(length) || length <= 0 || offset + length > data.length)
      throw new RegistryError('BAD_PACKAGE', `${at}: malformed PAX record`);
    const record = data.subarray(space + 1, offset + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    const key = record.slice(0, eq);
    // a size record would make this reader and another disagree on where the next entry starts
    if (key === 'size') throw new RegistryError('BAD_PACKAGE', `${at}: a PAX size record is not supported`);
    if (key === 'path') path = record.slice(eq + 1);
    offset += length;
  }
  return path;
}

/**
 * Reads regular files only; links, devices and (for packages) directories and pax headers are
 * refused, naming the kind of entry (a package needs none; an image layer, see TarDialect, may
 * hold directories and PAX headers, never a link).
 */
export function readTar(tar: Buffer, where: string, limits: TarLimits, dialect: TarDialect = {}): TarEntry[] {
  const out: TarEntry[] = [];
  let offset = 0;
  let total = 0;
  let nextPath: string | undefined;
  while (offset + BLOCK <= tar.length) {
    const block = tar.subarray(offset, offset + BLOCK);
    if (block.every((b) => b === 0)) return out;
    const h = readHeader(block, where);
    const name = nextPath ?? h.name;
    const at = nextPath === undefined ? h.at : `${where}: entry "${name}"`;
    nextPath = undefined;
    const start = offset + BLOCK;
    offset = start + Math.ceil(h.size / BLOCK) * BLOCK;
    const body = (): Buffer => {
      if (start + h.size > tar.length) throw new RegistryError('BAD_PACKAGE', `${at}: truncated`);
      return tar.subarray(start, start + h.size);
    };
    if (dialect.pax === true && (h.type === 'x' || h.type === 'g')) {
      if (h.size > 64 * 1024) throw new RegistryError('BAD_PACKAGE', `${at}: PAX header larger than 64 KiB`);
      if (h.type === 'x') nextPath = paxPath(body(), at);
      continue;
    }
    if (dialect.skipDirectories === true && h.type === '5') continue;
    if (h.type !== '0' && h.type !== '\0') {
      throw new RegistryError(
        'BAD_PACKAGE',
        `${at}: only regular files are allowed (type "${h.type}": ${TYPE_NAMES[h.type] ?? 'an unknown kind of entry'})`,
      );
    }
    total += h.size;
    if (out.length >= limits.maxEntries)
      throw new RegistryError('BAD_PACKAGE', `${where}: more than ${limits.maxEntries} entries`);
    if (total > limits.maxTotalBytes)
      throw new RegistryError(
        'TOO_LARGE',
        `${where}: contents exceed ${limits.maxTotalBytes} bytes (entry "${name}" is ${h.size} bytes)`,
      );
    out.push({ name, data: new Uint8Array(body()) });
  }
  throw new RegistryError('BAD_PACKAGE', `${where}: tar archive has no end marker (truncated?)`);
}

export function gzip(data: Buffer): Buffer {
  return gzipSync(data, { level: 9 });
}

export function gunzip(data: Uint8Array, where: string, maxBytes: number): Buffer {
  try {
    return gunzipSync(data, { maxOutputLength: maxBytes });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE')
      throw new RegistryError('TOO_LARGE', `${where}: unpacks to more than ${maxBytes} bytes`);
    throw new RegistryError('BAD_PACKAGE', `${where}: not a gzip archive (${messageOf(err)})`);
  }
}
