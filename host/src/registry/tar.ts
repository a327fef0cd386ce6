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
  writeString(header, offset, length, value.toString(8).padStart(length - 1, '0') + '\0');
}

function headerFor(name: string, size: number): Buffer {
  if (Buffer.byteLength(name) > 100) throw new RegistryError('BAD_PACKAGE', `tar: entry name "${name}" is longer than 100 bytes`);
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
  writeString(h, 148, 8, sum.toString(8).padStart(6, '0') + '\0 ');
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

/** Reads regular files only; links, devices, directories and pax headers are refused (a package needs none). */
export function readTar(tar: Buffer, where: string, limits: TarLimits): TarEntry[] {
  const out: TarEntry[] = [];
  let offset = 0;
  let total = 0;
  while (offset + BLOCK <= tar.length) {
    const block = tar.subarray(offset, offset + BLOCK);
    if (block.every((b) => b === 0)) return out;
    const name = readString(block, 0, 100);
    const prefix = readString(block, 345, 155);
    const fullName = prefix === '' ? name : `${prefix}/${name}`;
    const at = `${where}: entry "${fullName}"`;
    const stored = readOctal(block, 148, 8, at);
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (block[i] ?? 0);
    if (sum !== stored) throw new RegistryError('BAD_PACKAGE', `${at}: header checksum mismatch`);
    const type = String.fromCharCode(block[156] ?? 0);
    if (type !== '0' && type !== '\0') throw new RegistryError('BAD_PACKAGE', `${at}: only regular files are allowed (type "${type}")`);
    const size = readOctal(block, 124, 12, at);
    total += size;
    if (out.length >= limits.maxEntries) throw new RegistryError('BAD_PACKAGE', `${where}: more than ${limits.maxEntries} entries`);
    if (total > limits.maxTotalBytes) throw new RegistryError('TOO_LARGE', `${where}: contents exceed ${limits.maxTotalBytes} bytes`);
    const start = offset + BLOCK;
    if (start + size > tar.length) throw new RegistryError('BAD_PACKAGE', `${at}: truncated`);
    out.push({ name: fullName, data: new Uint8Array(tar.subarray(start, start + size)) });
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
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
    if (code === 'ERR_BUFFER_TOO_LARGE') throw new RegistryError('TOO_LARGE', `${where}: unpacks to more than ${maxBytes} bytes`);
    throw new RegistryError('BAD_PACKAGE', `${where}: not a gzip archive (${messageOf(err)})`);
  }
}
