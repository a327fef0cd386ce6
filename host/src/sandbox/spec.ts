// What the manifest layer hands the sandbox. Checked with zod: a bad spec is a load error, not a crash.
import type { Logger } from 'pino';
import { z } from 'zod';
import { SandboxLoadError } from './load-error.js';
import { LIMITS, type SandboxLimits } from './limits.js';
import { CLIENT_FEATURES, type ClientFeature } from '../tool/index.js';

export interface SandboxToolSpec {
  name: string;
  wasm: Uint8Array;
  sha256?: string;
  entry: string;
  /** Further modules, each serving the imports of one namespace (module.link). */
  links?: SandboxLink[];
  limits: SandboxLimits;
  allowedHosts: string[];
  /** guest path -> absolute host path */
  allowedPaths: Record<string, { host: string; mode: 'ro' | 'rw'; maxBytes?: number; maxEntries?: number }>;
  config: Record<string, string>;
  /** Values replaced by [REDACTED] in every log line and error message. */
  secretValues: string[];
  pool?: { max?: number; idleMs?: number };
  logger?: Logger;
  /** What the module may ask of the calling client through toolgate:mcp (manifest capabilities.mcp). */
  clientFeatures?: ClientFeature[];
  /** The module may import hyper-mcp's host functions (module.abi hyper-mcp), each still gated by clientFeatures. */
  hyperHostFunctions?: boolean;
  /** Where calls run (execution.ts); default: on the calling thread when the tool may. */
  execution?: SandboxExecution;
  /**
   * `component`: wasm is a component of toolgate's world (module/component.ts), run by the worker's
   * component runner; default `extism`, an Extism plugin.
   */
  abi?: SandboxAbi;
}

export type SandboxAbi = 'extism' | 'component';

/**
 * `path: 'worker'` keeps every call in a worker (an operator's or a test's choice); `instrument`
 * overrides whether modules get preemption fuel (default: when the calling thread may run them);
 * `sliceMs` is how long a call may run on the calling thread before it moves to a worker.
 */
export interface SandboxExecution {
  path?: 'auto' | 'worker';
  instrument?: boolean;
  sliceMs?: number;
}

export interface SandboxLink {
  namespace: string;
  wasm: Uint8Array;
  sha256?: string;
}

/** Namespaces a link may not take: the host's own, and the SDK's name for the main module. */
export const RESERVED_LINK_NAMESPACES: readonly string[] = ['main', 'extism:host/env', 'wasi_snapshot_preview1'];

/**
 * The spec's schema, built on the first load: zod schemas cost their construction when built (cold
 * code, ~0.1 ms each), and a start that loads the sandbox for a first call should not pay for the
 * ones it never parses (docs/decisions.md, "First call of a fresh server, warm home").
 */
let builtSpecSchema: ReturnType<typeof buildSpecSchema> | undefined;

function buildSpecSchema() {
  const positive = z.number().int().positive();
  return z.object({
    name: z.string().min(1).max(128),
    wasm: z.instanceof(Uint8Array),
    sha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex digits')
      .optional(),
    entry: z.string().min(1).max(256),
    links: z
      .array(
        z.object({
          namespace: z
            .string()
            .min(1)
            .max(256)
            .refine(
              (ns) => !RESERVED_LINK_NAMESPACES.includes(ns) && !ns.startsWith('toolgate:'),
              'is a reserved namespace',
            ),
          wasm: z.instanceof(Uint8Array),
          sha256: z
            .string()
            .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex digits')
            .optional(),
        }),
      )
      .max(LIMITS.links.max)
      .optional(),
    limits: z.object({
      maxPages: positive.max(LIMITS.maxPages.max),
      timeoutMs: positive.max(LIMITS.timeoutMs.max),
      maxInputBytes: positive.max(LIMITS.maxInputBytes.max),
      maxOutputBytes: positive.max(LIMITS.maxOutputBytes.max),
      maxHttpResponseBytes: positive.max(LIMITS.maxHttpResponseBytes.max),
      maxVarBytes: positive.max(LIMITS.maxVarBytes.max),
      maxLogBytes: positive.max(LIMITS.maxLogBytes.max),
      maxAllocBytes: positive.max(2 ** 32).optional(),
    }),
    allowedHosts: z.array(z.string()),
    allowedPaths: z.record(
      z.string().startsWith('/', 'guest path must be absolute'),
      z.object({
        host: z.string().startsWith('/', 'host path must be absolute'),
        mode: z.enum(['ro', 'rw']),
        maxBytes: z.number().int().nonnegative().optional(),
        maxEntries: z.number().int().nonnegative().optional(),
      }),
    ),
    config: z.record(z.string(), z.string()),
    secretValues: z.array(z.string()),
    pool: z
      .object({
        max: positive.max(LIMITS.poolMax.max).optional(),
        idleMs: positive.max(LIMITS.poolIdleMs.max).optional(),
      })
      .optional(),
    logger: z.unknown().optional(),
    execution: z
      .object({
        path: z.enum(['auto', 'worker']).optional(),
        instrument: z.boolean().optional(),
        sliceMs: positive.max(60_000).optional(),
      })
      .strict()
      .optional(),
    clientFeatures: z.array(z.enum(CLIENT_FEATURES)).optional(),
    abi: z.enum(['extism', 'component']).optional(),
    hyperHostFunctions: z.boolean().optional(),
  });
}

export function checkSpec(spec: SandboxToolSpec): void {
  // parsed once per load: zod's generated fast path would cost more to build than it saves
  const parsed = (builtSpecSchema ??= buildSpecSchema()).safeParse(spec, { jitless: true });
  if (parsed.success) return checkComponentSpec(spec);
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'spec';
  const name = typeof spec?.name === 'string' ? spec.name : '?';
  throw new SandboxLoadError('BAD_SPEC', `tool "${name}": ${where}: ${issue?.message ?? 'invalid'}`);
}

/**
 * toolgate's world (pdk-examples/js/lib/world.wit) has no files, no MCP client requests and one
 * module: a component tool that asks for them is refused rather than silently given nothing.
 */
function checkComponentSpec(spec: SandboxToolSpec): void {
  if (spec.abi !== 'component') return;
  const asks = [
    (spec.links ?? []).length > 0 ? 'links (module.link)' : '',
    Object.keys(spec.allowedPaths).length > 0 ? 'allowedPaths (capabilities.allowed_paths)' : '',
    (spec.clientFeatures ?? []).length > 0 ? 'clientFeatures (capabilities.mcp)' : '',
  ].filter((a) => a !== '');
  if (asks.length === 0) return;
  throw new SandboxLoadError(
    'BAD_SPEC',
    `tool "${spec.name}": ${asks.join(', ')}: not in toolgate's world for components (module.abi: component); see docs/authoring-ts.md`,
  );
}
