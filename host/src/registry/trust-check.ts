// Decides whether a package's signature makes it trusted. A signature by a trusted key that does not
// verify is tampering and is refused always; an unknown signer or no signature is refused unless the
// user explicitly accepts unsigned packages.
import { RegistryError } from './errors.js';
import { statementOf, type ToolPackage } from './package.js';
import { loadPublicKey, verifyPackageSignature } from './signing.js';
import { findTrustedByKeyId } from './trust.js';

export type TrustVerdict =
  | { kind: 'trusted'; keyId: string; name: string; signature: string }
  | { kind: 'unsigned' }
  | { kind: 'unknown-signer'; keyId: string };

export async function judgeSignature(pkg: ToolPackage, trustFile: string): Promise<TrustVerdict> {
  if (!pkg.signature) return { kind: 'unsigned' };
  const key = await findTrustedByKeyId(trustFile, pkg.signature.signer);
  if (!key) return { kind: 'unknown-signer', keyId: pkg.signature.signer };
  const ok = verifyPackageSignature(loadPublicKey(key.publicKey, trustFile), statementOf(pkg), pkg.signature.signature);
  if (!ok) {
    throw new RegistryError(
      'BAD_SIGNATURE',
      `${pkg.name}@${pkg.version}: signature by ${key.name} (${key.keyId}) does not match the package contents (name, version or a file digest was changed)`,
    );
  }
  return { kind: 'trusted', keyId: key.keyId, name: key.name, signature: pkg.signature.signature };
}

/** Throws unless trusted, or allowUnsigned (then returns the warning to print loudly). */
export function requireTrust(pkg: ToolPackage, verdict: TrustVerdict, allowUnsigned: boolean): string | undefined {
  if (verdict.kind === 'trusted') return undefined;
  const what = `${pkg.name}@${pkg.version}`;
  const why =
    verdict.kind === 'unsigned'
      ? `${what} is not signed`
      : `${what} is signed by ${verdict.keyId}, which is not a trusted publisher key`;
  if (!allowUnsigned) {
    const hint =
      verdict.kind === 'unsigned'
        ? 'pass --allow-unsigned to install it anyway'
        : 'add the publisher key with `toolgate trust add <name> <pubkey-file>`, or pass --allow-unsigned';
    throw new RegistryError(verdict.kind === 'unsigned' ? 'UNSIGNED' : 'UNKNOWN_SIGNER', `${why}; ${hint}`);
  }
  return `WARNING: ${why}. Installing anyway because of --allow-unsigned: nobody vouches for this code.`;
}

/**
 * Who vouches for the package, for the consent review: the person agrees to a publisher as much as
 * to capabilities. An untrusted verdict reaches a review only with --allow-unsigned.
 */
export function signerLine(verdict: TrustVerdict): string {
  if (verdict.kind === 'trusted') return `signed by ${verdict.name} (${verdict.keyId}), a trusted publisher key`;
  if (verdict.kind === 'unknown-signer')
    return `signed by ${verdict.keyId}, NOT a trusted publisher key (installing only because of --allow-unsigned)`;
  return 'NOT signed: nobody vouches for it (installing only because of --allow-unsigned)';
}
