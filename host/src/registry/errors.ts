import type { z } from 'zod';
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

/**
 * A registry document (lockfile, trust file, index) read as JSON and checked by its schema. Either
 * failure is a RegistryError with `code` naming `where`, and for a schema failure the key path and
 * the rule.
 */
export function parseJsonDocument<S extends z.ZodType>(text: string, schema: S, where: string, code: RegistryErrorCode, what: string): z.output<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new RegistryError(code, `${where}: not valid JSON`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RegistryError(code, `${where}: ${issue?.path.map(String).join('.') ?? ''}: ${issue?.message ?? `invalid ${what}`}`);
  }
  return parsed.data;
}
