// What the manifest layer hands the sandbox. Checked with zod: a bad spec is a load error, not a crash.
import type { Logger } from 'pino';
import { z } from 'zod';
import { SandboxLoadError } from './load-error.js';
import type { SandboxLimits } from './limits.js';

export interface SandboxToolSpec {
  name: string;
  wasm: Uint8Array;
  sha256?: string;
  entry: string;
  limits: SandboxLimits;
  allowedHosts: string[];
  /** guest path -> absolute host path */
  allowedPaths: Record<string, { host: string; mode: 'ro' | 'rw' }>;
  config: Record<string, string>;
  /** Values replaced by [REDACTED] in every log line and error message. */
  secretValues: string[];
  pool?: { max?: number; idleMs?: number };
  logger?: Logger;
}

const positive = z.number().int().positive();
const specSchema = z.object({
  name: z.string().min(1).max(128),
  wasm: z.instanceof(Uint8Array),
  sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex digits').optional(),
  entry: z.string().min(1).max(256),
  limits: z.object({
    maxPages: positive.max(65536),
    timeoutMs: positive.max(24 * 3600 * 1000),
    maxInputBytes: positive.max(1 << 30),
    maxOutputBytes: positive.max(1 << 30),
    maxHttpResponseBytes: positive.max(1 << 30),
    maxVarBytes: positive.max(1 << 30),
    maxLogBytes: positive.max(1 << 30),
    maxAllocBytes: positive.max(2 ** 32).optional(),
  }),
  allowedHosts: z.array(z.string()),
  allowedPaths: z.record(
    z.string().startsWith('/', 'guest path must be absolute'),
    z.object({ host: z.string().startsWith('/', 'host path must be absolute'), mode: z.enum(['ro', 'rw']) }),
  ),
  config: z.record(z.string(), z.string()),
  secretValues: z.array(z.string()),
  pool: z.object({ max: positive.max(64).optional(), idleMs: positive.optional() }).optional(),
  logger: z.unknown().optional(),
});

export function checkSpec(spec: SandboxToolSpec): void {
  const parsed = specSchema.safeParse(spec);
  if (parsed.success) return;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'spec';
  const name = typeof spec?.name === 'string' ? spec.name : '?';
  throw new SandboxLoadError('BAD_SPEC', `tool "${name}": ${where}: ${issue?.message ?? 'invalid'}`);
}
