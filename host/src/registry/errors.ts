import { ToolgateError } from '../errors/index.js';
// Every refusal of the registry carries a stable code: scripts and tests match on the code, people
// read the message (which names the tool, the file and the rule).

export const REGISTRY_ERROR_CODES = [
  'NOT_FOUND',
  'AUTH_REQUIRED',
  'DIGEST_MISMATCH',
  'BAD_SIGNATURE',
  'UNKNOWN_SIGNER',
  'UNSIGNED',
  'DOWNGRADE',
  'VERSION_CONFLICT',
  'CEILING_EXCEEDED',
  'CONSENT_REQUIRED',
  'CONSENT_DECLINED',
  'BAD_PACKAGE',
  'BAD_MANIFEST',
  'BAD_REFERENCE',
  'BAD_KEY',
  'BAD_CONFIG',
  'INSECURE_TRANSPORT',
  'NETWORK',
  'TOO_LARGE',
  'NOT_INSTALLED',
  'STORE_CORRUPT',
  'STORE_CHANGED',
] as const;
export type RegistryErrorCode = (typeof REGISTRY_ERROR_CODES)[number];

export class RegistryError extends ToolgateError<RegistryErrorCode> {}

export function isRegistryError(err: unknown): err is RegistryError {
  return err instanceof RegistryError;
}

export { messageOf } from '../errors/index.js';
