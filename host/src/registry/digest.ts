// Content addresses are `sha256:<64 hex>` everywhere (OCI's spelling), bare hex only on disk paths.
import { sha256Hex } from '../digest/index.js';
import { RegistryError } from './errors.js';

const DIGEST = /^sha256:([0-9a-f]{64})$/;
const HEX = /^[0-9a-f]{64}$/;

export { sha256Hex };

export function digestOf(bytes: Uint8Array): string {
  return `sha256:${sha256Hex(bytes)}`;
}

export function isDigest(text: string): boolean {
  return DIGEST.test(text);
}

/** The hex part of a `sha256:` digest; a malformed digest is a package error, never a path. */
export function digestHex(digest: string, where: string): string {
  const match = DIGEST.exec(digest);
  if (match?.[1] === undefined) {
    throw new RegistryError('BAD_PACKAGE', `${where}: "${digest}" is not a sha256 digest (sha256:<64 lowercase hex>)`);
  }
  return match[1];
}

/** Accepts a manifest's `module.sha256` in either spelling (bare hex or sha256:hex). */
export function normalizeDigest(text: string): string | undefined {
  const lower = text.trim().toLowerCase();
  if (HEX.test(lower)) return `sha256:${lower}`;
  if (DIGEST.test(lower)) return lower;
  return undefined;
}

export function expectDigest(bytes: Uint8Array, expected: string, what: string): void {
  const actual = digestOf(bytes);
  if (actual !== expected) {
    throw new RegistryError('DIGEST_MISMATCH', `${what}: digest ${actual} does not match the expected ${expected}`);
  }
}
