import { Errno } from './abi.js';
import { WasiError } from './errors.js';

/**
 * Bounds-checked access to the guest's linear memory. A fresh view is taken on every call because
 * memory.grow detaches the old ArrayBuffer. Every out-of-range pointer becomes EFAULT for the guest,
 * never a host exception.
 */
export class GuestMemory {
  readonly #getMemory: () => WebAssembly.Memory | undefined;

  constructor(getMemory: () => WebAssembly.Memory | undefined) {
    this.#getMemory = getMemory;
  }

  #buffer(): ArrayBuffer {
    const memory = this.#getMemory();
    if (memory === undefined) throw new WasiError(Errno.FAULT, 'guest memory is not available yet');
    return memory.buffer;
  }

  #check(buffer: ArrayBuffer, ptr: number, len: number): void {
    if (
      !Number.isSafeInteger(ptr) ||
      !Number.isSafeInteger(len) ||
      ptr < 0 ||
      len < 0 ||
      ptr + len > buffer.byteLength
    ) {
      throw new WasiError(Errno.FAULT, `guest pointer ${ptr}+${len} is outside memory`);
    }
  }

  /** A live view into guest memory (no copy). Valid only until the guest runs again. */
  bytes(ptr: number, len: number): Uint8Array {
    const buffer = this.#buffer();
    this.#check(buffer, ptr, len);
    return new Uint8Array(buffer, ptr, len);
  }

  view(ptr: number, len: number): DataView {
    const buffer = this.#buffer();
    this.#check(buffer, ptr, len);
    return new DataView(buffer, ptr, len);
  }

  u32(ptr: number): number {
    return this.view(ptr, 4).getUint32(0, true);
  }

  u64(ptr: number): bigint {
    return this.view(ptr, 8).getBigUint64(0, true);
  }

  setU32(ptr: number, value: number): void {
    this.view(ptr, 4).setUint32(0, value, true);
  }

  setU64(ptr: number, value: bigint): void {
    this.view(ptr, 8).setBigUint64(0, BigInt.asUintN(64, value), true);
  }

  write(ptr: number, data: Uint8Array): void {
    this.bytes(ptr, data.byteLength).set(data);
  }
}
