// The manifest YAML schema (docs/authoring.md, "The manifest"). Strict objects everywhere: an unknown key is a typo or a
// capability we do not understand, and either way it must not load silently.
// Written on zod's mini API (functions, not methods; the same core, checks and issues as zod's
// classic API): an empty home builds and uses it on a fresh server's first list, and a mini schema
// costs about half a classic one to build (docs/decisions.md, "The manifest schema on zod/mini").
import * as z from 'zod/mini';
import {
  CLIENT_FEATURES,
  jsonSchemaProblem,
  TOOL_NAME_RE,
  type Json,
  type JsonObject,
  type ParamSpec,
} from '../tool/index.js';
import { MANIFEST_BOUNDS, MANIFEST_DEFAULTS } from './defaults.js';
import { normalHostPattern } from '../host-grammar/index.js';

// semver.org's own regular expression (2.0.0).
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
const ENV_NAME = /^[A-Z_][A-Z0-9_]{0,127}$/;
const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

const boundedInt = (min: number, max: number) => z.number().check(z.int(), z.minimum(min), z.maximum(max));

/** What zod's classic `ctx.addIssue` does in a transform (mini's transforms are given the bare payload). */
function addCustomIssue(payload: z.core.ParsePayload, path: PropertyKey[], message: string): void {
  payload.issues.push({ code: 'custom', path, message, input: payload.value });
}

const PARAM_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'] as const;

function matchesType(value: Json, type: ParamSpec['type']): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
  }
}

/** Import namespaces a linked module may not serve: the host's own, and the SDK's name for the main module. */
const RESERVED_LINK_NAMESPACES = ['main', 'extism:host/env', 'wasi_snapshot_preview1'];

/**
 * How the host talks to the module: `toolgate` (one export, the wire ABI below) or `hyper-mcp` (the
 * module describes its own tools, resources and prompts through hyper-mcp's plugin exports;
 * manifest/hyper-mcp.ts, docs/authoring.md "The hyper-mcp interface") or `component` (a component of
 * toolgate's world, built from JavaScript or TypeScript: docs/authoring-ts.md).
 */
export const MODULE_ABIS = ['toolgate', 'hyper-mcp', 'component'] as const;
export type ModuleAbi = (typeof MODULE_ABIS)[number];

/** Keys a hyper-mcp manifest may not set: the module describes them itself (docs/decisions.md). */
const MODULE_DESCRIBED_KEYS = ['parameters', 'inputSchema', 'input', 'output', 'annotations'] as const;

function guestPathProblem(key: string): string | undefined {
  if (!key.startsWith('/')) return 'must be an absolute guest path (start with /)';
  if (key.length > 1024) return 'must be at most 1024 characters';
  if (key.includes('\0')) return 'must not contain NUL';
  const segments = key.split('/').slice(1);
  if (key !== '/' && segments.some((s) => s === '' || s === '.' || s === '..'))
    return 'must be a normalized path (no //, . or .. segments, no trailing /)';
  return undefined;
}

/** input.parameter must name a required string argument, so every valid call has its bytes. */
function inputParameterProblem(m: {
  input: { parameter?: string | undefined };
  parameters?: Record<string, ParamSpec> | undefined;
  inputSchema?: JsonObject | undefined;
}): string | undefined {
  const name = m.input.parameter;
  if (name === undefined) return undefined;
  const rule = `must name a required parameter of type string ("${name}" is not one)`;
  if (m.parameters !== undefined) {
    const spec = m.parameters[name];
    return spec?.type === 'string' && spec.required === true ? undefined : rule;
  }
  const props = m.inputSchema?.['properties'];
  const prop =
    props !== null && typeof props === 'object' && !Array.isArray(props) ? (props as JsonObject)[name] : undefined;
  const type =
    prop !== null && typeof prop === 'object' && !Array.isArray(prop) ? (prop as JsonObject)['type'] : undefined;
  const required = m.inputSchema?.['required'];
  return type === 'string' && Array.isArray(required) && required.includes(name) ? undefined : rule;
}

/**
 * A hyper-mcp manifest names the plugin and grants capabilities; what it serves comes from the
 * module. A key that would describe a tool is refused rather than ignored, so nobody reads a
 * schema in the manifest that no call is checked against. Checked on the raw input (defaults
 * would make `input` and `output` always present).
 */
function hyperMcpRawIssues(raw: unknown, payload: z.core.ParsePayload): void {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return;
  const doc = raw as Record<string, unknown>;
  const mod = doc['module'];
  if (mod === null || typeof mod !== 'object' || (mod as Record<string, unknown>)['abi'] !== 'hyper-mcp') return;
  for (const key of MODULE_DESCRIBED_KEYS) {
    if (Object.hasOwn(doc, key))
      addCustomIssue(
        payload,
        [key],
        'is not allowed when module.abi is hyper-mcp: the module describes its own tools (names, schemas, results)',
      );
  }
  if (Object.hasOwn(mod, 'entry'))
    addCustomIssue(
      payload,
      ['module', 'entry'],
      'is not allowed when module.abi is hyper-mcp: the interface names the exports',
    );
  const name = doc['name'];
  // `<plugin>__<tool>` must split one way only (docs/decisions.md, "Served names of module tools")
  if (typeof name === 'string' && (name.includes('__') || name.endsWith('_') || name.length > 48))
    addCustomIssue(
      payload,
      ['name'],
      'must not contain "__", end with "_" or be longer than 48 characters when module.abi is hyper-mcp (it prefixes every tool the module serves as <name>__<tool>)',
    );
}

/** Parameters and raw JSON Schemas: the DSL's ParamSpec (recursive) and what it is made of. */
function paramSchemas() {
  const json = z.json() as unknown as z.ZodMiniType<Json>;

  /** A raw JSON Schema object, checked against the 2020-12 meta-schema. */
  const jsonSchemaObject = z.record(z.string(), json).check(
    z.superRefine((schema, ctx) => {
      const problem = jsonSchemaProblem(schema);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    }),
  ) as unknown as z.ZodMiniType<JsonObject>;

  const paramName = z.string().check(z.regex(PARAM_NAME, `must match ${PARAM_NAME.source}`));

  // Recursive: items and properties are ParamSpecs again; nonsense combinations are refused.
  const paramSpecSchema: z.ZodMiniType<ParamSpec> = z.lazy(() =>
    z
      .strictObject({
        type: z.enum(PARAM_TYPES),
        required: z.optional(z.boolean()),
        description: z.optional(z.string().check(z.minLength(1), z.maxLength(MANIFEST_BOUNDS.paramDescriptionChars))),
        enum: z.optional(z.array(json).check(z.minLength(1))),
        default: z.optional(json),
        items: z.optional(paramSpecSchema),
        properties: z.optional(z.record(paramName, paramSpecSchema)),
      })
      .check(
        z.superRefine((spec, ctx) => {
          if (spec.items !== undefined && spec.type !== 'array')
            ctx.addIssue({ code: 'custom', path: ['items'], message: 'is allowed only when type is array' });
          if (spec.properties !== undefined && spec.type !== 'object')
            ctx.addIssue({ code: 'custom', path: ['properties'], message: 'is allowed only when type is object' });
          spec.enum?.forEach((v, i) => {
            if (!matchesType(v, spec.type))
              ctx.addIssue({ code: 'custom', path: ['enum', i], message: `must be of type ${spec.type}` });
          });
          if (spec.default !== undefined) {
            if (!matchesType(spec.default, spec.type))
              ctx.addIssue({ code: 'custom', path: ['default'], message: `must be of type ${spec.type}` });
            else if (
              spec.enum !== undefined &&
              !spec.enum.some((v) => JSON.stringify(v) === JSON.stringify(spec.default))
            )
              ctx.addIssue({ code: 'custom', path: ['default'], message: 'must be one of the enum values' });
          }
        }),
      ),
  );

  return { jsonSchemaObject, paramName, paramSpecSchema };
}

/** `module:` with its links. */
function moduleSchemaOf() {
  const sha256Hex = z.pipe(
    z.string().check(z.regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal characters')),
    z.transform((s: string) => s.toLowerCase()),
  );
  const noControl = z.regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters');

  // module.link: NAMESPACE -> path (or {path, sha256}); the module serves that import namespace.
  const linkSchema = z.pipe(
    z
      .record(
        z.string().check(
          z.minLength(1),
          z.maxLength(256),
          noControl,
          z.refine(
            (ns: string) => !RESERVED_LINK_NAMESPACES.includes(ns) && !ns.startsWith('toolgate:'),
            "is a namespace toolgate serves itself (or the main module's name)",
          ),
        ),
        z.union([
          z.string().check(z.minLength(1)),
          z.strictObject({ path: z.string().check(z.minLength(1)), sha256: z.optional(sha256Hex) }),
        ]),
      )
      .check(
        z.refine(
          (links: Record<string, unknown>) => Object.keys(links).length <= MANIFEST_BOUNDS.maxLinks,
          `must list at most ${MANIFEST_BOUNDS.maxLinks} modules`,
        ),
      ),
    z.transform((links: Record<string, string | { path: string; sha256?: string | undefined }>) =>
      Object.entries(links).map(([namespace, v]) =>
        typeof v === 'string' ? { namespace, path: v } : { namespace, ...v },
      ),
    ),
  );

  return z.strictObject({
    path: z.string().check(z.minLength(1)),
    abi: z._default(z.enum(MODULE_ABIS), 'toolgate'),
    sha256: z.optional(sha256Hex),
    link: z.optional(linkSchema),
    entry: z.optional(z.string().check(z.minLength(1), z.maxLength(256), noControl)),
  });
}

/** `output:`. */
function outputSchemaOf(jsonSchemaObject: z.ZodMiniType<JsonObject>) {
  const renderSchema = z.union([
    z.enum(['json', 'text', 'mcp']),
    z.strictObject({ template: z.string().check(z.minLength(1), z.maxLength(MANIFEST_BOUNDS.templateChars)) }),
  ]);

  return z
    .strictObject({
      schema: z.optional(jsonSchemaObject),
      render: z._default(renderSchema, 'json'),
      encoding: z._default(z.enum(['json', 'text', 'base64']), 'json'),
    })
    .check(
      z.superRefine((out, ctx) => {
        // With encoding text or base64 the value is always a string; a schema that forbids strings can never pass.
        const type = out.schema?.['type'];
        if (out.encoding !== 'json' && type !== undefined) {
          const allowsString = type === 'string' || (Array.isArray(type) && type.includes('string'));
          if (!allowsString)
            ctx.addIssue({
              code: 'custom',
              path: ['schema', 'type'],
              message: `must allow string when output.encoding is ${out.encoding}`,
            });
        }
      }),
    );
}

/** `capabilities.allowed_hosts` and `capabilities.allowed_paths`. */
function grantSchemasOf() {
  // Stored in the sandbox grammar's normal form (`0x7f.1:8080` -> `127.0.0.1:8080`), so consent,
  // `inspect`, the upgrade diff, guard-hosts and ceilings all see the host the sandbox will reach.
  const hostPattern = z.pipe(
    z.string(),
    z.transform((raw: string, payload) => {
      const parsed = normalHostPattern(raw);
      if ('problem' in parsed) {
        addCustomIssue(payload, [], `"${raw}" ${parsed.problem}`);
        return z.NEVER;
      }
      return parsed.normal;
    }),
  );

  // max_bytes: what one call may write to an rw mount (writes, and growth by set_size/allocate);
  // max_entries: how many files and directories it may create there (empty ones cost an inode each).
  // An ro mount writes nothing, so a quota there is a mistake; an rw mount always has both.
  const pathGrant = z.pipe(
    z
      .strictObject({
        host: z.string().check(z.minLength(1), z.maxLength(4096)),
        mode: z._default(z.enum(['ro', 'rw']), 'ro'),
        max_bytes: z.optional(boundedInt(1, MANIFEST_BOUNDS.maxWriteBytes)),
        max_entries: z.optional(boundedInt(0, MANIFEST_BOUNDS.maxWriteEntries)),
      })
      .check(
        z.superRefine((g, ctx) => {
          for (const key of ['max_bytes', 'max_entries'] as const) {
            if (g.mode === 'ro' && g[key] !== undefined)
              ctx.addIssue({
                code: 'custom',
                path: [key],
                message: 'is allowed only when mode is rw (a read-only mount writes nothing)',
              });
          }
        }),
      ),
    z.transform(
      (g: { host: string; mode: 'ro' | 'rw'; max_bytes?: number | undefined; max_entries?: number | undefined }) =>
        g.mode === 'rw'
          ? {
              ...g,
              max_bytes: g.max_bytes ?? MANIFEST_DEFAULTS.maxWriteBytes,
              max_entries: g.max_entries ?? MANIFEST_DEFAULTS.maxWriteEntries,
            }
          : g,
    ),
  );

  const allowedPaths = z.record(z.string(), pathGrant).check(
    z.superRefine((paths, ctx) => {
      for (const key of Object.keys(paths)) {
        const problem = guestPathProblem(key);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: problem });
      }
    }),
  );

  return { hostPattern, allowedPaths };
}

/** `capabilities:`: hosts, paths, memory, limits, config, secrets, client features. */
function capabilitiesSchemaOf() {
  const { hostPattern, allowedPaths } = grantSchemasOf();
  const anyBytes = boundedInt(1, MANIFEST_BOUNDS.maxBytes);
  const memorySchema = z.strictObject({
    max_pages: z._default(boundedInt(1, MANIFEST_BOUNDS.maxPages), MANIFEST_DEFAULTS.maxPages),
    max_var_bytes: z._default(anyBytes, MANIFEST_DEFAULTS.maxVarBytes),
    max_http_response_bytes: z._default(anyBytes, MANIFEST_DEFAULTS.maxHttpResponseBytes),
  });

  return z
    .strictObject({
      allowed_hosts: z._default(z.array(hostPattern).check(z.maxLength(256)), []),
      allowed_paths: z._default(allowedPaths, {}),
      memory: z.prefault(memorySchema, {}),
      timeout_ms: z._default(boundedInt(1, MANIFEST_BOUNDS.timeoutMs), MANIFEST_DEFAULTS.timeoutMs),
      max_output_bytes: z._default(anyBytes, MANIFEST_DEFAULTS.maxOutputBytes),
      max_input_bytes: z._default(anyBytes, MANIFEST_DEFAULTS.maxInputBytes),
      config: z._default(
        z.record(
          z.string().check(z.minLength(1), z.maxLength(256)),
          z.string().check(z.maxLength(MANIFEST_BOUNDS.configValueChars)),
        ),
        {},
      ),
      secrets: z._default(
        z
          .array(z.string().check(z.regex(ENV_NAME, `must be an environment variable name (${ENV_NAME.source})`)))
          .check(z.maxLength(64)),
        [],
      ),
      // What the module may ask of the MCP client during a call (toolgate:mcp imports); none by default.
      mcp: z._default(z.array(z.enum(CLIENT_FEATURES)).check(z.maxLength(CLIENT_FEATURES.length)), []),
    })
    .check(z.superRefine(capabilitiesIssues));
}

/** Duplicates in capabilities.mcp and .secrets, and a secret that is also a config key. */
function capabilitiesIssues(
  caps: { mcp: readonly string[]; secrets: readonly string[]; config: Record<string, string> },
  ctx: z.core.$RefinementCtx,
): void {
  caps.mcp.forEach((f, i) => {
    if (caps.mcp.indexOf(f) !== i) ctx.addIssue({ code: 'custom', path: ['mcp', i], message: `lists ${f} twice` });
  });
  const seen = new Set<string>();
  caps.secrets.forEach((name, i) => {
    if (seen.has(name)) ctx.addIssue({ code: 'custom', path: ['secrets', i], message: `lists ${name} twice` });
    seen.add(name);
    // Both arrive as Extism config keys; sharing one would let config shadow the secret.
    if (Object.hasOwn(caps.config, name))
      ctx.addIssue({
        code: 'custom',
        path: ['secrets', i],
        message: `${name} is also a config key; config and secrets may not share a key`,
      });
  });
}

/** `input:`, `pool:`, `annotations:`, `execution:`. */
function smallSchemas(paramName: z.ZodMiniString<string>) {
  // What the module receives: the JSON arguments object (default), or the bytes of one string argument
  // (raw: its UTF-8; base64: the bytes it encodes), as stock Extism plugins read their input.
  const inputEncodingSchema = z
    .strictObject({
      encoding: z._default(z.enum(['json', 'raw', 'base64']), 'json'),
      parameter: z.optional(paramName),
    })
    .check(
      z.superRefine((input, ctx) => {
        if (input.encoding !== 'json' && input.parameter === undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['parameter'],
            message: `is required when encoding is ${input.encoding} (the string argument whose bytes the module gets)`,
          });
        if (input.encoding === 'json' && input.parameter !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['parameter'],
            message: 'is allowed only when encoding is raw or base64',
          });
      }),
    );

  const poolSchema = z.strictObject({
    max: z.optional(boundedInt(1, MANIFEST_BOUNDS.poolMax)),
    idle_ms: z.optional(boundedInt(1, MANIFEST_BOUNDS.poolIdleMs)),
  });

  const hint = z.optional(z.boolean());
  const annotationsSchema = z
    .strictObject({
      title: z.optional(z.string().check(z.minLength(1), z.maxLength(MANIFEST_BOUNDS.titleChars))),
      readOnlyHint: hint,
      destructiveHint: hint,
      idempotentHint: hint,
      openWorldHint: hint,
    })
    .check(
      z.superRefine((a, ctx) => {
        if (a.readOnlyHint === true && a.destructiveHint === true)
          ctx.addIssue({
            code: 'custom',
            path: ['destructiveHint'],
            message: 'cannot be true when readOnlyHint is true',
          });
      }),
    );

  // How MCP clients may run the tool (the Tasks extension, docs/mcp.md "Tasks"): forbidden (always
  // answered in the request; the default, so manifests written before tasks mean what they meant),
  // optional (a task when the client declares the extension) or required (only as a task).
  // sync_ms: how long a task call first runs as an ordinary request, so questions it asks at once
  // are an ordinary input round and the task starts once they are answered.
  const executionSchema = z.strictObject({
    task: z._default(z.enum(['forbidden', 'optional', 'required']), 'forbidden'),
    sync_ms: z._default(boundedInt(0, MANIFEST_BOUNDS.timeoutMs), 0),
  });

  return { inputEncodingSchema, poolSchema, annotationsSchema, executionSchema };
}

/** Rules across keys: parameters or inputSchema, its type, execution.sync_ms, input.parameter. */
function manifestIssues(
  m: {
    parameters?: Record<string, ParamSpec> | undefined;
    inputSchema?: JsonObject | undefined;
    input: { parameter?: string | undefined };
    execution?: { task: string; sync_ms: number } | undefined;
  },
  ctx: z.core.$RefinementCtx,
): void {
  if (m.parameters !== undefined && m.inputSchema !== undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['inputSchema'],
      message: 'cannot be given together with parameters (use one)',
    });
  const type = m.inputSchema?.['type'];
  if (m.inputSchema !== undefined && type !== undefined && type !== 'object')
    ctx.addIssue({
      code: 'custom',
      path: ['inputSchema', 'type'],
      message: 'must be object (arguments are a JSON object)',
    });
  if (m.execution !== undefined && m.execution.task === 'forbidden' && m.execution.sync_ms !== 0)
    ctx.addIssue({
      code: 'custom',
      path: ['execution', 'sync_ms'],
      message: 'is allowed only when task is optional or required',
    });
  const problem = inputParameterProblem(m);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', path: ['input', 'parameter'], message: problem });
}

function buildManifestSchema() {
  const { jsonSchemaObject, paramName, paramSpecSchema } = paramSchemas();
  const { inputEncodingSchema, poolSchema, annotationsSchema, executionSchema } = smallSchemas(paramName);
  const fields = z
    .strictObject({
      apiVersion: z.literal('toolgate/v1'),
      name: z.string().check(z.regex(TOOL_NAME_RE, `must match ${TOOL_NAME_RE.source}`)),
      version: z.string().check(z.regex(SEMVER, 'must be a semantic version such as 1.2.0')),
      description: z.string().check(
        z.maxLength(MANIFEST_BOUNDS.descriptionChars),
        z.refine((s: string) => s.trim() !== '', 'must not be empty'),
      ),
      module: moduleSchemaOf(),
      parameters: z.optional(z.record(paramName, paramSpecSchema)),
      inputSchema: z.optional(jsonSchemaObject),
      input: z.prefault(inputEncodingSchema, {}),
      output: z.prefault(outputSchemaOf(jsonSchemaObject), {}),
      capabilities: z.prefault(capabilitiesSchemaOf(), {}),
      pool: z.optional(poolSchema),
      annotations: z.optional(annotationsSchema),
      execution: z.optional(executionSchema),
    })
    .check(z.superRefine(manifestIssues));
  // hyperMcpRawIssues runs first, on the raw input (as zod's classic preprocess would)
  return z.pipe(
    z.transform((raw: unknown, payload) => {
      hyperMcpRawIssues(raw, payload);
      return raw;
    }),
    z.pipe(
      fields,
      z.transform((m: z.output<typeof fields>) => ({ ...m, module: { ...m.module, entry: m.module.entry ?? m.name } })),
    ),
  );
}

let built: ReturnType<typeof buildManifestSchema> | undefined;

/**
 * The manifest schema, built on its first use: building it took 13-16 ms of every start (on zod's
 * classic API; ~6 ms on mini), where a warm home reads its manifests from the parse cache and never
 * parses (docs/decisions.md, issue 27, and "The manifest schema on zod/mini").
 */
export function manifestSchema(): ReturnType<typeof buildManifestSchema> {
  built ??= buildManifestSchema();
  return built;
}

/** A manifest after validation, with every default applied (snake_case as in the YAML). */
export type Manifest = z.output<ReturnType<typeof buildManifestSchema>>;
