// The manifest YAML schema (docs/authoring.md, "The manifest"). Strict objects everywhere: an unknown key is a typo or a
// capability we do not understand, and either way it must not load silently.
import { z } from 'zod';
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

const boundedInt = (min: number, max: number) => z.number().int().min(min).max(max);

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
function hyperMcpRawIssues(raw: unknown, ctx: z.core.$RefinementCtx): void {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return;
  const doc = raw as Record<string, unknown>;
  const mod = doc['module'];
  if (mod === null || typeof mod !== 'object' || (mod as Record<string, unknown>)['abi'] !== 'hyper-mcp') return;
  for (const key of MODULE_DESCRIBED_KEYS) {
    if (Object.hasOwn(doc, key))
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message:
          'is not allowed when module.abi is hyper-mcp: the module describes its own tools (names, schemas, results)',
      });
  }
  if (Object.hasOwn(mod, 'entry'))
    ctx.addIssue({
      code: 'custom',
      path: ['module', 'entry'],
      message: 'is not allowed when module.abi is hyper-mcp: the interface names the exports',
    });
  const name = doc['name'];
  // `<plugin>__<tool>` must split one way only (docs/decisions.md, "Served names of module tools")
  if (typeof name === 'string' && (name.includes('__') || name.endsWith('_') || name.length > 48))
    ctx.addIssue({
      code: 'custom',
      path: ['name'],
      message:
        'must not contain "__", end with "_" or be longer than 48 characters when module.abi is hyper-mcp (it prefixes every tool the module serves as <name>__<tool>)',
    });
}

/** Parameters and raw JSON Schemas: the DSL's ParamSpec (recursive) and what it is made of. */
function paramSchemas() {
  const json = z.json() as unknown as z.ZodType<Json>;

  /** A raw JSON Schema object, checked against the 2020-12 meta-schema. */
  const jsonSchemaObject = z.record(z.string(), json).superRefine((schema, ctx) => {
    const problem = jsonSchemaProblem(schema);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  }) as unknown as z.ZodType<JsonObject>;

  const paramName = z.string().regex(PARAM_NAME, `must match ${PARAM_NAME.source}`);

  // Recursive: items and properties are ParamSpecs again; nonsense combinations are refused.
  const paramSpecSchema: z.ZodType<ParamSpec> = z.lazy(() =>
    z
      .strictObject({
        type: z.enum(PARAM_TYPES),
        required: z.boolean().optional(),
        description: z.string().min(1).max(MANIFEST_BOUNDS.paramDescriptionChars).optional(),
        enum: z.array(json).min(1).optional(),
        default: json.optional(),
        items: paramSpecSchema.optional(),
        properties: z.record(paramName, paramSpecSchema).optional(),
      })
      .superRefine((spec, ctx) => {
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
  );

  return { jsonSchemaObject, paramName, paramSpecSchema };
}

/** `module:` with its links. */
function moduleSchemaOf() {
  const sha256Hex = z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal characters')
    .transform((s) => s.toLowerCase());

  // module.link: NAMESPACE -> path (or {path, sha256}); the module serves that import namespace.
  const linkSchema = z
    .record(
      z
        .string()
        .min(1)
        .max(256)
        .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters')
        .refine(
          (ns) => !RESERVED_LINK_NAMESPACES.includes(ns) && !ns.startsWith('toolgate:'),
          "is a namespace toolgate serves itself (or the main module's name)",
        ),
      z.union([z.string().min(1), z.strictObject({ path: z.string().min(1), sha256: sha256Hex.optional() })]),
    )
    .refine(
      (links) => Object.keys(links).length <= MANIFEST_BOUNDS.maxLinks,
      `must list at most ${MANIFEST_BOUNDS.maxLinks} modules`,
    )
    .transform((links) =>
      Object.entries(links).map(([namespace, v]) =>
        typeof v === 'string' ? { namespace, path: v } : { namespace, ...v },
      ),
    );

  return z.strictObject({
    path: z.string().min(1),
    abi: z.enum(MODULE_ABIS).default('toolgate'),
    sha256: sha256Hex.optional(),
    link: linkSchema.optional(),
    entry: z
      .string()
      .min(1)
      .max(256)
      .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters')
      .optional(),
  });
}

/** `output:`. */
function outputSchemaOf(jsonSchemaObject: z.ZodType<JsonObject>) {
  const renderSchema = z.union([
    z.enum(['json', 'text', 'mcp']),
    z.strictObject({ template: z.string().min(1).max(MANIFEST_BOUNDS.templateChars) }),
  ]);

  return z
    .strictObject({
      schema: jsonSchemaObject.optional(),
      render: renderSchema.default('json'),
      encoding: z.enum(['json', 'text', 'base64']).default('json'),
    })
    .superRefine((out, ctx) => {
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
    });
}

/** `capabilities:`: hosts, paths, memory, limits, config, secrets, client features. */
function capabilitiesSchemaOf() {
  // Stored in the sandbox grammar's normal form (`0x7f.1:8080` -> `127.0.0.1:8080`), so consent,
  // `inspect`, the upgrade diff, guard-hosts and ceilings all see the host the sandbox will reach.
  const hostPattern = z.string().transform((raw, ctx) => {
    const parsed = normalHostPattern(raw);
    if ('problem' in parsed) {
      ctx.addIssue({ code: 'custom', message: `"${raw}" ${parsed.problem}` });
      return z.NEVER;
    }
    return parsed.normal;
  });

  // max_bytes: what one call may write to an rw mount (writes, and growth by set_size/allocate);
  // max_entries: how many files and directories it may create there (empty ones cost an inode each).
  // An ro mount writes nothing, so a quota there is a mistake; an rw mount always has both.
  const pathGrant = z
    .strictObject({
      host: z.string().min(1).max(4096),
      mode: z.enum(['ro', 'rw']).default('ro'),
      max_bytes: boundedInt(1, MANIFEST_BOUNDS.maxWriteBytes).optional(),
      max_entries: boundedInt(0, MANIFEST_BOUNDS.maxWriteEntries).optional(),
    })
    .superRefine((g, ctx) => {
      for (const key of ['max_bytes', 'max_entries'] as const) {
        if (g.mode === 'ro' && g[key] !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: 'is allowed only when mode is rw (a read-only mount writes nothing)',
          });
      }
    })
    .transform((g) =>
      g.mode === 'rw'
        ? {
            ...g,
            max_bytes: g.max_bytes ?? MANIFEST_DEFAULTS.maxWriteBytes,
            max_entries: g.max_entries ?? MANIFEST_DEFAULTS.maxWriteEntries,
          }
        : g,
    );

  const allowedPaths = z.record(z.string(), pathGrant).superRefine((paths, ctx) => {
    for (const key of Object.keys(paths)) {
      const problem = guestPathProblem(key);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: problem });
    }
  });

  const memorySchema = z.strictObject({
    max_pages: boundedInt(1, MANIFEST_BOUNDS.maxPages).default(MANIFEST_DEFAULTS.maxPages),
    max_var_bytes: boundedInt(1, MANIFEST_BOUNDS.maxBytes).default(MANIFEST_DEFAULTS.maxVarBytes),
    max_http_response_bytes: boundedInt(1, MANIFEST_BOUNDS.maxBytes).default(MANIFEST_DEFAULTS.maxHttpResponseBytes),
  });

  return z
    .strictObject({
      allowed_hosts: z.array(hostPattern).max(256).default([]),
      allowed_paths: allowedPaths.default({}),
      memory: memorySchema.prefault({}),
      timeout_ms: boundedInt(1, MANIFEST_BOUNDS.timeoutMs).default(MANIFEST_DEFAULTS.timeoutMs),
      max_output_bytes: boundedInt(1, MANIFEST_BOUNDS.maxBytes).default(MANIFEST_DEFAULTS.maxOutputBytes),
      max_input_bytes: boundedInt(1, MANIFEST_BOUNDS.maxBytes).default(MANIFEST_DEFAULTS.maxInputBytes),
      config: z.record(z.string().min(1).max(256), z.string().max(MANIFEST_BOUNDS.configValueChars)).default({}),
      secrets: z
        .array(z.string().regex(ENV_NAME, `must be an environment variable name (${ENV_NAME.source})`))
        .max(64)
        .default([]),
      // What the module may ask of the MCP client during a call (toolgate:mcp imports); none by default.
      mcp: z.array(z.enum(CLIENT_FEATURES)).max(CLIENT_FEATURES.length).default([]),
    })
    .superRefine((caps, ctx) => {
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
    });
}

/** `input:`, `pool:`, `annotations:`, `execution:`. */
function smallSchemas(paramName: z.ZodString) {
  // What the module receives: the JSON arguments object (default), or the bytes of one string argument
  // (raw: its UTF-8; base64: the bytes it encodes), as stock Extism plugins read their input.
  const inputEncodingSchema = z
    .strictObject({
      encoding: z.enum(['json', 'raw', 'base64']).default('json'),
      parameter: paramName.optional(),
    })
    .superRefine((input, ctx) => {
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
    });

  const poolSchema = z.strictObject({
    max: boundedInt(1, MANIFEST_BOUNDS.poolMax).optional(),
    idle_ms: boundedInt(1, MANIFEST_BOUNDS.poolIdleMs).optional(),
  });

  const annotationsSchema = z
    .strictObject({
      title: z.string().min(1).max(MANIFEST_BOUNDS.titleChars).optional(),
      readOnlyHint: z.boolean().optional(),
      destructiveHint: z.boolean().optional(),
      idempotentHint: z.boolean().optional(),
      openWorldHint: z.boolean().optional(),
    })
    .superRefine((a, ctx) => {
      if (a.readOnlyHint === true && a.destructiveHint === true)
        ctx.addIssue({
          code: 'custom',
          path: ['destructiveHint'],
          message: 'cannot be true when readOnlyHint is true',
        });
    });

  // How MCP clients may run the tool (the Tasks extension, docs/mcp.md "Tasks"): forbidden (always
  // answered in the request; the default, so manifests written before tasks mean what they meant),
  // optional (a task when the client declares the extension) or required (only as a task).
  // sync_ms: how long a task call first runs as an ordinary request, so questions it asks at once
  // are an ordinary input round and the task starts once they are answered.
  const executionSchema = z.strictObject({
    task: z.enum(['forbidden', 'optional', 'required']).default('forbidden'),
    sync_ms: boundedInt(0, MANIFEST_BOUNDS.timeoutMs).default(0),
  });

  return { inputEncodingSchema, poolSchema, annotationsSchema, executionSchema };
}

function buildManifestSchema() {
  const { jsonSchemaObject, paramName, paramSpecSchema } = paramSchemas();
  const moduleSchema = moduleSchemaOf();
  const outputSchema = outputSchemaOf(jsonSchemaObject);
  const capabilitiesSchema = capabilitiesSchemaOf();
  const { inputEncodingSchema, poolSchema, annotationsSchema, executionSchema } = smallSchemas(paramName);
  return z.preprocess(
    (raw, ctx) => {
      hyperMcpRawIssues(raw, ctx);
      return raw;
    },
    z
      .strictObject({
        apiVersion: z.literal('toolgate/v1'),
        name: z.string().regex(TOOL_NAME_RE, `must match ${TOOL_NAME_RE.source}`),
        version: z.string().regex(SEMVER, 'must be a semantic version such as 1.2.0'),
        description: z
          .string()
          .max(MANIFEST_BOUNDS.descriptionChars)
          .refine((s) => s.trim() !== '', 'must not be empty'),
        module: moduleSchema,
        parameters: z.record(paramName, paramSpecSchema).optional(),
        inputSchema: jsonSchemaObject.optional(),
        input: inputEncodingSchema.prefault({}),
        output: outputSchema.prefault({}),
        capabilities: capabilitiesSchema.prefault({}),
        pool: poolSchema.optional(),
        annotations: annotationsSchema.optional(),
        execution: executionSchema.optional(),
      })
      .superRefine((m, ctx) => {
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
      })
      .transform((m) => ({ ...m, module: { ...m.module, entry: m.module.entry ?? m.name } })),
  );
}

let built: ReturnType<typeof buildManifestSchema> | undefined;

/**
 * The manifest schema, built on its first use: building it took 13-16 ms of every start, where a
 * warm home reads its manifests from the parse cache and never parses (docs/decisions.md, issue 27).
 */
export function manifestSchema(): ReturnType<typeof buildManifestSchema> {
  built ??= buildManifestSchema();
  return built;
}

/** A manifest after validation, with every default applied (snake_case as in the YAML). */
export type Manifest = z.output<ReturnType<typeof buildManifestSchema>>;
