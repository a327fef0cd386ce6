// A ustar archive written by hand, entry by entry, so a test can put in it what no packer would:
// `..` names, links, PAX and GNU long-name records. Shared by the hostile package tests.

/** One archive entry: `type` is the ustar type flag ('0' a file when absent), `link` its target. */
export interface TarEntry {
  name: string;
  data: Buffer;
  type?: string;
  link?: string;
}

/** The 512-byte ustar header of `e`, with its checksum. */
function header(e: TarEntry): Buffer {
  const h = Buffer.alloc(512);
  h.write(e.name, 0, 100, 'utf8');
  h.write('0000644\0', 100, 'ascii');
  h.write('0000000\0', 108, 'ascii');
  h.write('0000000\0', 116, 'ascii');
  h.write(`${e.data.length.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
  h.write('00000000000\0', 136, 'ascii');
  h.write(e.type ?? '0', 156, 'ascii');
  if (e.link !== undefined) h.write(e.link, 157, 100, 'utf8');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

/** The entries as one uncompressed tar, each padded to 512 bytes, with the two closing blocks. */
export function tarOf(list: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of list) parts.push(header(e), e.data, Buffer.alloc((512 - (e.data.length % 512)) % 512));
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}
