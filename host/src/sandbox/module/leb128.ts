// Minimal LEB128 codec for the WebAssembly binary format (unsigned u32 and the i32 constants we emit).
// Its refusals are the instruction walkers' own (refusals.ts).
import { refuse } from './refusals.js';

export class BinaryReader {
  pos: number;
  constructor(
    readonly bytes: Uint8Array,
    start = 0,
    readonly end = bytes.length,
  ) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  byte(): number {
    if (this.pos >= this.end) throw refuse.endOfData(this.pos);
    return this.bytes[this.pos++] as number;
  }

  /** An unsigned LEB128 that must fit in 32 bits (every index, count and size in a module does). */
  u32(): number {
    let result = 0;
    let shift = 0;
    for (let i = 0; i < 5; i++) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) {
        if (result > 0xffffffff) throw refuse.u32Overflow(this.pos);
        return result;
      }
      shift += 7;
    }
    throw refuse.u32Over5Bytes(this.pos);
  }

  /** An unsigned LEB128 up to 64 bits (memory64 limits), as a bigint. */
  u64(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      const b = this.byte();
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
    throw refuse.lebOver10Bytes(this.pos);
  }

  take(n: number): Uint8Array {
    if (n < 0 || this.pos + n > this.end) throw refuse.runsPastEnd(n, this.pos);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  name(): string {
    const n = this.u32();
    return new TextDecoder('utf-8', { fatal: true }).decode(this.take(n));
  }
}

export function encodeU32(value: number): number[] {
  const out: number[] = [];
  let v = value >>> 0;
  do {
    let b = v & 0x7f;
    v >>>= 7;
    if (v !== 0) b |= 0x80;
    out.push(b);
  } while (v !== 0);
  return out;
}

export function encodeName(name: string): number[] {
  const bytes = new TextEncoder().encode(name);
  return [...encodeU32(bytes.length), ...bytes];
}

/** Concatenates byte chunks into one buffer. */
export function concatBytes(chunks: (Uint8Array | number[])[]): Uint8Array {
  let total = 0;
  for (const c of chunks) total += c.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** A signed LEB128 (the operand of i32.const). */
export function encodeI32(value: number): number[] {
  const out: number[] = [];
  let v = value | 0;
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    const done = (v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0);
    out.push(done ? b : b | 0x80);
    if (done) return out;
  }
}
