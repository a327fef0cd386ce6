// Splits a core WebAssembly module into its sections and joins them back. Only what toolgate patches
// is parsed further (see prepare.ts); every other section is carried over byte for byte.
import { BinaryReader, concatBytes, encodeU32 } from './leb128.js';

export const SECTION = {
  custom: 0,
  type: 1,
  import: 2,
  function: 3,
  table: 4,
  memory: 5,
  global: 6,
  export: 7,
  start: 8,
  element: 9,
  code: 10,
  data: 11,
  dataCount: 12,
  tag: 13,
} as const;

/** The order non-custom sections must appear in (the tag section sits between memory and global). */
const ORDER: Record<number, number> = {
  1: 1,
  2: 2,
  3: 3,
  4: 4,
  5: 5,
  13: 6,
  6: 7,
  7: 8,
  8: 9,
  9: 10,
  12: 11,
  10: 12,
  11: 13,
};

export interface Section {
  id: number;
  body: Uint8Array;
}

const MAGIC = [0x00, 0x61, 0x73, 0x6d];

export function splitSections(bytes: Uint8Array): Section[] {
  if (bytes.length < 8 || MAGIC.some((b, i) => bytes[i] !== b)) {
    throw new Error('not a WebAssembly module (missing the \\0asm magic number)');
  }
  const version =
    (bytes[4] as number) | ((bytes[5] as number) << 8) | ((bytes[6] as number) << 16) | ((bytes[7] as number) << 24);
  if (version !== 1)
    throw new Error(
      `unsupported binary version ${version} (components are not accepted; want a core module, version 1)`,
    );
  // A Buffer's subarray is Node's JavaScript wrapper, run for every body cut and copied while a module
  // is instrumented (cold code on a fresh server's first call); a plain view slices with V8's builtin.
  const view = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  const r = new BinaryReader(view, 8);
  const sections: Section[] = [];
  let lastRank = 0;
  while (!r.done) {
    const id = r.byte();
    const size = r.u32();
    const body = r.take(size);
    if (id !== SECTION.custom) {
      const rank = ORDER[id];
      if (rank === undefined) throw new Error(`unknown section id ${id}`);
      if (rank <= lastRank) throw new Error(`section id ${id} is out of order or repeated`);
      lastRank = rank;
    }
    sections.push({ id, body });
  }
  return sections;
}

export function joinSections(sections: Section[]): Uint8Array {
  const chunks: (Uint8Array | number[])[] = [[...MAGIC, 1, 0, 0, 0]];
  for (const s of sections) chunks.push([s.id, ...encodeU32(s.body.length)], s.body);
  return concatBytes(chunks);
}

/** Puts a new non-custom section where the format wants it. */
export function insertSection(sections: Section[], section: Section): void {
  const rank = ORDER[section.id] as number;
  const at = sections.findIndex((s) => s.id !== SECTION.custom && (ORDER[s.id] as number) > rank);
  if (at === -1) sections.push(section);
  else sections.splice(at, 0, section);
}
