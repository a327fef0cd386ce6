// ed25519 signatures over a canonical statement of a package: its name, version and the digest of
// every file in it. The statement is plain text so it is the same bytes in every language.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import { RegistryError } from './errors.js';
import { messageOf } from '../errors/index.js';

export interface PackageSignature {
  /** Key id of the signer, `ed25519:<16 hex>` (see keyIdOf). */
  signer: string;
  /** base64 ed25519 signature over signedStatement(...). */
  signature: string;
}

/**
 * toolgate-package-signature-v1
 * name <name>
 * version <version>
 * file <name> <sha256:hex>      (one line per file, sorted by file name)
 */
export function signedStatement(name: string, version: string, digests: Readonly<Record<string, string>>): string {
  const files = Object.keys(digests)
    .sort()
    .map((f) => `file ${f} ${digests[f] ?? ''}\n`)
    .join('');
  return `toolgate-package-signature-v1\nname ${name}\nversion ${version}\n${files}`;
}

/** `ed25519:` + the first 16 hex digits of sha256(raw 32-byte public key). */
export function keyIdOf(publicKey: KeyObject): string {
  const jwk = publicKey.export({ format: 'jwk' });
  if (typeof jwk.x !== 'string') throw new RegistryError('BAD_KEY', 'public key has no ed25519 point');
  const raw = Buffer.from(jwk.x, 'base64url');
  return `ed25519:${createHash('sha256').update(raw).digest('hex').slice(0, 16)}`;
}

export function generateSigningKey(): { privatePem: string; publicPem: string; keyId: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    keyId: keyIdOf(publicKey),
  };
}

/** An ed25519 key from PEM, or BAD_KEY naming the file and what is wrong with it. */
function loadKey(kind: 'public' | 'private', pem: string, file: string): KeyObject {
  let key: KeyObject;
  try {
    key = kind === 'public' ? createPublicKey(pem) : createPrivateKey(pem);
  } catch (err) {
    throw new RegistryError('BAD_KEY', `${file}: not a PEM ${kind} key (${messageOf(err)})`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new RegistryError('BAD_KEY', `${file}: key type ${key.asymmetricKeyType ?? '?'} is not ed25519`);
  return key;
}

export const loadPublicKey = (pem: string, file: string): KeyObject => loadKey('public', pem, file);
export const loadPrivateKey = (pem: string, file: string): KeyObject => loadKey('private', pem, file);

export function signPackage(privateKey: KeyObject, statement: string): PackageSignature {
  const publicKey = createPublicKey(privateKey);
  return {
    signer: keyIdOf(publicKey),
    signature: sign(null, Buffer.from(statement, 'utf8'), privateKey).toString('base64'),
  };
}

export function verifyPackageSignature(publicKey: KeyObject, statement: string, signatureB64: string): boolean {
  try {
    return verify(null, Buffer.from(statement, 'utf8'), publicKey, Buffer.from(signatureB64, 'base64'));
  } catch {
    return false;
  }
}
