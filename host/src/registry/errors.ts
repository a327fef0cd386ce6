import type { z } from 'zod';
import { ERROR_CODES_BY_PART, ToolgateError, type CodeOf } from '../errors/index.js';
// Every refusal of the registry carries a stable code: scripts and tests match on the code, people
// read the message (which names the tool, the file and the rule).

export const REGISTRY_ERROR_CODES = ERROR_CODES_BY_PART.registry;
export type RegistryErrorCode = CodeOf<'registry'>;

export class RegistryError extends ToolgateError<RegistryErrorCode> {}

export function isRegistryError(err: unknown): err is RegistryError {
  return err instanceof RegistryError;
}

/**
 * A registry document (lockfile, trust file, index) read as JSON and checked by its schema. Either
 * failure is a RegistryError with `code` naming `where`, and for a schema failure the key path and
 * the rule.
 */
export function parseJsonDocument<S extends z.ZodType>(
  text: string,
  schema: S,
  where: string,
  code: RegistryErrorCode,
  what: string,
): z.output<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new RegistryError(code, `${where}: not valid JSON`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RegistryError(
      code,
      `${where}: ${issue?.path.map(String).join('.') ?? ''}: ${issue?.message ?? `invalid ${what}`}`,
    );
  }
  return parsed.data;
}
