import { describe, expect, test } from 'vitest';
import { ManifestError } from '../../host/src/manifest/errors.js';
import { parseManifest } from '../../host/src/manifest/parse.js';
import { BASE, manifestWith, yamlOf } from './helpers.js';

const FILE = '/manifests/demo.yaml';

function refusal(obj: unknown): ManifestError {
  try {
    parseManifest(yamlOf(obj), FILE);
  } catch (err) {
    if (err instanceof ManifestError) return err;
    throw err;
  }
  throw new Error('the manifest was accepted');
}

const caps = (c: Record<string, unknown>) => manifestWith({ capabilities: c });
const param = (p: Record<string, unknown>) => manifestWith({ parameters: { q: p } });

// [rule, manifest, key path, rule text]
const CASES: Array<[string, Record<string, unknown>, string, string]> = [
  ['apiVersion is required', manifestWith({ apiVersion: undefined }), 'apiVersion', 'is required'],
  [
    'apiVersion must be toolgate/v1',
    manifestWith({ apiVersion: 'toolgate/v2' }),
    'apiVersion',
    'must be "toolgate/v1"',
  ],
  ['name is required', manifestWith({ name: undefined }), 'name', 'is required'],
  [
    'name must match the tool-name pattern',
    manifestWith({ name: 'Fetch-URL' }),
    'name',
    'must match ^[a-z][a-z0-9_]{0,63}$',
  ],
  ['name is at most 64 characters', manifestWith({ name: `a${'b'.repeat(64)}` }), 'name', 'must match'],
  ['version must be semver', manifestWith({ version: '1.2' }), 'version', 'must be a semantic version'],
  ['version must be a string', manifestWith({ version: 1 }), 'version', 'must be string (got integer)'],
  ['description must not be empty', manifestWith({ description: '   ' }), 'description', 'must not be empty'],
  [
    'description is bounded',
    manifestWith({ description: 'x'.repeat(5000) }),
    'description',
    'must be at most 4096 characters',
  ],
  ['module is required', manifestWith({ module: undefined }), 'module', 'is required'],
  ['module.path must not be empty', manifestWith({ module: { path: '' } }), 'module.path', 'must not be empty'],
  [
    'module.sha256 must be 64 hex characters',
    manifestWith({ module: { path: 'a.wasm', sha256: 'abc' } }),
    'module.sha256',
    'must be 64 hexadecimal characters',
  ],
  [
    'module.entry must not be empty',
    manifestWith({ module: { path: 'a.wasm', entry: '' } }),
    'module.entry',
    'must not be empty',
  ],
  [
    'module.abi is one of toolgate, hyper-mcp, component',
    manifestWith({ module: { path: 'a.wasm', abi: 'js' } }),
    'module.abi',
    'component',
  ],
  [
    'module refuses unknown keys',
    manifestWith({ module: { path: 'a.wasm', hash: 'x' } }),
    'module.hash',
    'unknown key',
  ],
  ['the top level refuses unknown keys', manifestWith({ capabilites: {} }), 'capabilites', 'unknown key'],
  [
    'a parameter type must be a known type',
    param({ type: 'str' }),
    'parameters.q.type',
    'must be one of "string", "number", "integer", "boolean", "array", "object"',
  ],
  [
    'a parameter name must be a word',
    manifestWith({ parameters: { 'bad name': { type: 'string' } } }),
    'parameters["bad name"]',
    'key must match',
  ],
  [
    'parameter required must be boolean',
    param({ type: 'string', required: 'yes' }),
    'parameters.q.required',
    'must be boolean (got string)',
  ],
  [
    'parameter items only for arrays',
    param({ type: 'string', items: { type: 'string' } }),
    'parameters.q.items',
    'is allowed only when type is array',
  ],
  [
    'parameter properties only for objects',
    param({ type: 'string', properties: {} }),
    'parameters.q.properties',
    'is allowed only when type is object',
  ],
  [
    'parameter enum values match the type',
    param({ type: 'string', enum: ['a', 2] }),
    'parameters.q.enum[1]',
    'must be of type string',
  ],
  [
    'parameter enum is not empty',
    param({ type: 'string', enum: [] }),
    'parameters.q.enum',
    'must have at least 1 item',
  ],
  [
    'parameter default matches the type',
    param({ type: 'integer', default: 1.5 }),
    'parameters.q.default',
    'must be of type integer',
  ],
  [
    'parameter default is one of the enum values',
    param({ type: 'string', enum: ['a'], default: 'b' }),
    'parameters.q.default',
    'must be one of the enum values',
  ],
  [
    'parameter specs are validated recursively (items)',
    param({ type: 'array', items: { type: 'nope' } }),
    'parameters.q.items.type',
    'must be one of',
  ],
  [
    'parameter specs are validated recursively (properties)',
    param({ type: 'object', properties: { inner: { type: 'string', extra: 1 } } }),
    'parameters.q.properties.inner.extra',
    'unknown key',
  ],
  [
    'parameters and inputSchema are not both given',
    manifestWith({ parameters: {}, inputSchema: { type: 'object' } }),
    'inputSchema',
    'cannot be given together with parameters',
  ],
  [
    'inputSchema must describe an object',
    manifestWith({ inputSchema: { type: 'string' } }),
    'inputSchema.type',
    'must be object',
  ],
  [
    'inputSchema must be a valid JSON Schema',
    manifestWith({ inputSchema: { type: 'object', properties: 5 } }),
    'inputSchema',
    'is not a valid JSON Schema',
  ],
  [
    'an inputSchema default must satisfy its own schema (tool model rule)',
    manifestWith({ inputSchema: { type: 'object', properties: { n: { type: 'integer', default: 'x' } } } }),
    'inputSchema.properties.n.default',
    'does not match its own schema',
  ],
  [
    'output.render is json, text, mcp or a template',
    manifestWith({ output: { render: 'html' } }),
    'output.render',
    'must be one of "json", "text", "mcp", an object',
  ],
  [
    'output.render.template must not be empty',
    manifestWith({ output: { render: { template: '' } } }),
    'output.render.template',
    'must not be empty',
  ],
  [
    'output.render refuses unknown keys',
    manifestWith({ output: { render: { template: 'x', engine: 'y' } } }),
    'output.render.engine',
    'unknown key',
  ],
  [
    'output.encoding is json or text',
    manifestWith({ output: { encoding: 'xml' } }),
    'output.encoding',
    'must be one of "json", "text"',
  ],
  [
    'output.schema must be a valid JSON Schema',
    manifestWith({ output: { schema: { type: 'nope' } } }),
    'output.schema',
    'is not a valid JSON Schema',
  ],
  [
    'output.schema must allow a string with encoding text',
    manifestWith({ output: { encoding: 'text', schema: { type: 'object' } } }),
    'output.schema.type',
    'must allow string when output.encoding is text',
  ],
  ['output refuses unknown keys', manifestWith({ output: { format: 'json' } }), 'output.format', 'unknown key'],
  [
    'allowed_hosts must be a list',
    caps({ allowed_hosts: 'example.com' }),
    'capabilities.allowed_hosts',
    'must be array (got string)',
  ],
  [
    'an allowed host is not a URL',
    caps({ allowed_hosts: ['https://example.com'] }),
    'capabilities.allowed_hosts[0]',
    'not a URL',
  ],
  [
    'an allowed host port is 1..65535',
    caps({ allowed_hosts: ['ok.example.com', 'example.com:70000'] }),
    'capabilities.allowed_hosts[1]',
    'must be 1-65535 or *',
  ],
  [
    'a host glob uses * only as the first label',
    caps({ allowed_hosts: ['api.*.example.com'] }),
    'capabilities.allowed_hosts[0]',
    'allowed only as the whole leftmost label',
  ],
  [
    'an allowed host name has valid labels',
    caps({ allowed_hosts: ['exa mple.com'] }),
    'capabilities.allowed_hosts[0]',
    'is not a valid host name',
  ],
  [
    'a guest path is absolute',
    caps({ allowed_paths: { data: { host: '.' } } }),
    'capabilities.allowed_paths.data',
    'must be an absolute guest path',
  ],
  [
    'a guest path is normalized',
    caps({ allowed_paths: { '/a/../b': { host: '.' } } }),
    'capabilities.allowed_paths["/a/../b"]',
    'must be a normalized path',
  ],
  [
    'a path grant needs a host',
    caps({ allowed_paths: { '/data': { mode: 'ro' } } }),
    'capabilities.allowed_paths["/data"].host',
    'is required',
  ],
  [
    'a path grant mode is ro or rw',
    caps({ allowed_paths: { '/data': { host: '.', mode: 'rx' } } }),
    'capabilities.allowed_paths["/data"].mode',
    'must be one of "ro", "rw"',
  ],
  [
    'memory.max_pages must be <= 65536',
    caps({ memory: { max_pages: 70000 } }),
    'capabilities.memory.max_pages',
    'must be <= 65536',
  ],
  [
    'memory.max_pages must be >= 1',
    caps({ memory: { max_pages: 0 } }),
    'capabilities.memory.max_pages',
    'must be >= 1',
  ],
  [
    'memory.max_pages must be an integer',
    caps({ memory: { max_pages: 1.5 } }),
    'capabilities.memory.max_pages',
    'must be an integer (got 1.5)',
  ],
  [
    'memory.max_http_response_bytes must be >= 1',
    caps({ memory: { max_http_response_bytes: 0 } }),
    'capabilities.memory.max_http_response_bytes',
    'must be >= 1',
  ],
  [
    'memory.max_http_response_bytes is bounded',
    caps({ memory: { max_http_response_bytes: 2 ** 40 } }),
    'capabilities.memory.max_http_response_bytes',
    'must be <= 67108864',
  ],
  ['memory refuses unknown keys', caps({ memory: { max_bytes: 1 } }), 'capabilities.memory.max_bytes', 'unknown key'],
  ['timeout_ms must be >= 1', caps({ timeout_ms: 0 }), 'capabilities.timeout_ms', 'must be >= 1'],
  ['timeout_ms must be <= 600000', caps({ timeout_ms: 600_001 }), 'capabilities.timeout_ms', 'must be <= 600000'],
  ['max_output_bytes must be >= 1', caps({ max_output_bytes: 0 }), 'capabilities.max_output_bytes', 'must be >= 1'],
  [
    'max_input_bytes must be a number',
    caps({ max_input_bytes: 'big' }),
    'capabilities.max_input_bytes',
    'must be number (got string)',
  ],
  [
    'config values are strings',
    caps({ config: { retries: 3 } }),
    'capabilities.config.retries',
    'must be string (got integer)',
  ],
  ['config keys must not be empty', caps({ config: { '': 'x' } }), 'capabilities.config[""]', 'key must not be empty'],
  [
    'a path grant host must not be empty',
    caps({ allowed_paths: { '/data': { host: '' } } }),
    'capabilities.allowed_paths["/data"].host',
    'must not be empty',
  ],
  [
    'secrets are environment variable names',
    caps({ secrets: ['github_token'] }),
    'capabilities.secrets[0]',
    'must be an environment variable name',
  ],
  [
    'a secret is listed once',
    caps({ secrets: ['A_TOKEN', 'A_TOKEN'] }),
    'capabilities.secrets[1]',
    'lists A_TOKEN twice',
  ],
  [
    'config and secrets may not share a key',
    caps({ config: { A_TOKEN: 'x' }, secrets: ['A_TOKEN'] }),
    'capabilities.secrets[0]',
    'config and secrets may not share a key',
  ],
  ['capabilities refuse unknown keys', caps({ allowed_ports: [80] }), 'capabilities.allowed_ports', 'unknown key'],
  [
    'capabilities.mcp lists only MCP client features',
    caps({ mcp: ['logging', 'telepathy'] }),
    'capabilities.mcp[1]',
    'must be one of "logging", "progress", "elicitation", "sampling", "roots"',
  ],
  [
    'capabilities.mcp lists a feature once',
    caps({ mcp: ['sampling', 'sampling'] }),
    'capabilities.mcp[1]',
    'lists sampling twice',
  ],
  ['capabilities.mcp is a list', caps({ mcp: 'sampling' }), 'capabilities.mcp', 'must be array (got string)'],
  ['pool.max must be >= 1', manifestWith({ pool: { max: 0 } }), 'pool.max', 'must be >= 1'],
  ['pool.max is bounded', manifestWith({ pool: { max: 1000 } }), 'pool.max', 'must be <= 64'],
  ['pool.idle_ms must be >= 1', manifestWith({ pool: { idle_ms: 0 } }), 'pool.idle_ms', 'must be >= 1'],
  ['pool refuses unknown keys', manifestWith({ pool: { min: 1 } }), 'pool.min', 'unknown key'],
  [
    'annotation hints are booleans',
    manifestWith({ annotations: { readOnlyHint: 'yes' } }),
    'annotations.readOnlyHint',
    'must be boolean (got string)',
  ],
  [
    'annotations.title must not be empty',
    manifestWith({ annotations: { title: '' } }),
    'annotations.title',
    'must not be empty',
  ],
  [
    'a read-only tool cannot be destructive',
    manifestWith({ annotations: { readOnlyHint: true, destructiveHint: true } }),
    'annotations.destructiveHint',
    'cannot be true when readOnlyHint is true',
  ],
  [
    'a parameter pattern RE2 cannot run in linear time (lookahead) is refused, naming the pattern',
    manifestWith({
      inputSchema: { type: 'object', properties: { code: { type: 'string', pattern: '^(?!admin)[a-z]+$' } } },
    }),
    'inputSchema.properties.code.pattern',
    'pattern "^(?!admin)[a-z]+$" cannot be used',
  ],
  [
    'a patternProperties key with a backreference is refused',
    manifestWith({ inputSchema: { type: 'object', patternProperties: { '^(x)\\1$': { type: 'string' } } } }),
    'inputSchema.patternProperties["^(x)\\\\1$"]',
    'cannot be used',
  ],
  [
    'an output schema pattern is checked too',
    manifestWith({
      output: { schema: { type: 'object', properties: { id: { type: 'string', pattern: '(?<=x)y' } } } },
    }),
    'output.schema.properties.id.pattern',
    'RE2',
  ],
  [
    'a description refuses ESC (terminal escapes)',
    manifestWith({ description: 'Reads.\u001b[2K\rmay read /docs' }),
    'description',
    'must not contain control, escape',
  ],
  [
    'a guest path refuses CR',
    manifestWith({ capabilities: { allowed_paths: { '/rw\r/docs': { host: '.', mode: 'rw' } } } }),
    'capabilities.allowed_paths["/rw\\r/docs"]',
    'key must not contain control',
  ],
  [
    'a config key refuses a bidi override',
    manifestWith({ capabilities: { config: { 'mode\u202e': 'x' } } }),
    'capabilities.config["mode\u202e"]',
    'bidirectional-override',
  ],
  [
    'a parameter description refuses C1 controls',
    manifestWith({ parameters: { q: { type: 'string', description: 'query\u009b2J' } } }),
    'parameters.q.description',
    'must not contain control',
  ],
  [
    'annotations.title refuses a newline',
    manifestWith({ annotations: { title: 'Title\nrw' } }),
    'annotations.title',
    'must not contain control',
  ],
  [
    'annotations refuse unknown keys',
    manifestWith({ annotations: { dangerous: true } }),
    'annotations.dangerous',
    'unknown key',
  ],
  [
    'execution.task is forbidden, optional or required',
    manifestWith({ execution: { task: 'always' } }),
    'execution.task',
    'must be one of "forbidden", "optional", "required"',
  ],
  [
    'execution.sync_ms needs a task-capable tool',
    manifestWith({ execution: { sync_ms: 100 } }),
    'execution.sync_ms',
    'is allowed only when task is optional or required',
  ],
  [
    'execution refuses unknown keys',
    manifestWith({ execution: { task: 'optional', ttl: 5 } }),
    'execution.ttl',
    'unknown key',
  ],
];

describe('a manifest that breaks a rule is refused with the file, the key path and the rule', () => {
  test.each(CASES)('%s', (_rule, manifest, path, rule) => {
    const err = refusal(manifest);
    expect(err.code).toBe('INVALID_MANIFEST');
    expect(err.file).toBe(FILE);
    const issue = err.issues.find((i) => i.path === path);
    expect(issue, `issues were: ${err.message}`).toBeDefined();
    expect(issue?.rule).toContain(rule);
    expect(err.message).toContain(`${FILE}: `);
    expect(err.message).toContain(`${path}: ${issue?.rule ?? ''}`);
  });
});

describe('module.abi: component', () => {
  test("a JavaScript tool's manifest (module.abi: component) is accepted, and the old forms still parse", () => {
    expect(parseManifest(yamlOf(manifestWith({ module: { path: 'a.wasm', abi: 'component' } })), FILE).module.abi).toBe(
      'component',
    );
    expect(parseManifest(yamlOf(manifestWith({ module: { path: 'a.wasm' } })), FILE).module.abi).toBe('toolgate');
  });
});

describe('defaults', () => {
  test('a manifest that says nothing gets the tight defaults: no hosts, no paths, 16 MiB, 10 s, 1 MiB each way', () => {
    const m = parseManifest(yamlOf(BASE), FILE);
    expect(m.capabilities).toEqual({
      allowed_hosts: [],
      allowed_paths: {},
      memory: { max_pages: 256, max_http_response_bytes: 1024 * 1024, max_var_bytes: 1024 * 1024 },
      timeout_ms: 10_000,
      max_output_bytes: 1024 * 1024,
      max_input_bytes: 1024 * 1024,
      config: {},
      secrets: [],
      mcp: [],
    });
    expect(m.output).toEqual({ render: 'json', encoding: 'json' });
    expect(m.pool).toBeUndefined();
  });

  test('a manifest without execution never runs as a task (as before tasks); optional without sync_ms becomes a task at once', () => {
    expect(parseManifest(yamlOf(BASE), FILE).execution).toBeUndefined();
    expect(parseManifest(yamlOf(manifestWith({ execution: { task: 'optional' } })), FILE).execution).toEqual({
      task: 'optional',
      sync_ms: 0,
    });
  });

  test('module.entry defaults to the tool name', () => {
    expect(parseManifest(yamlOf(BASE), FILE).module.entry).toBe('demo');
    const named = manifestWith({ module: { path: 'a.wasm', entry: 'run' } });
    expect(parseManifest(yamlOf(named), FILE).module.entry).toBe('run');
  });

  test('a path grant without a mode is read-only', () => {
    const m = parseManifest(yamlOf(caps({ allowed_paths: { '/data': { host: './ws' } } })), FILE);
    expect(m.capabilities.allowed_paths['/data']).toEqual({ host: './ws', mode: 'ro' });
  });

  test('partly given memory keeps the default for the rest', () => {
    const m = parseManifest(yamlOf(caps({ memory: { max_pages: 160 } })), FILE);
    expect(m.capabilities.memory).toEqual({
      max_pages: 160,
      max_http_response_bytes: 1024 * 1024,
      max_var_bytes: 1024 * 1024,
    });
  });

  test('the documented example manifest is valid as written', () => {
    const text = `apiVersion: toolgate/v1
name: fetch_url
version: 1.2.0
description: Fetch a page from an allowed host and return its text. Not for APIs that need auth.
module:
  path: ../pdk-examples/assemblyscript/build/fetch_url.wasm   # relative to this file
  sha256: ${'ab'.repeat(32)}
  entry: fetch_url
parameters:
  url: { type: string, required: true, description: Absolute https URL on an allowed host }
output:
  schema: { type: object, properties: { status: { type: integer }, text: { type: string } } }
  render: json
capabilities:
  allowed_hosts: ["docs.example.com", "127.0.0.1:8080"]
  allowed_paths: { /data: { host: ./workspace, mode: ro } }
  memory: { max_pages: 160, max_http_response_bytes: 1048576 }
  timeout_ms: 5000
  max_output_bytes: 1048576
  config: { user_agent: toolgate }
  secrets: [GITHUB_TOKEN]
annotations: { readOnlyHint: true, openWorldHint: true }
`;
    const m = parseManifest(text, FILE);
    expect(m.name).toBe('fetch_url');
    expect(m.capabilities.allowed_hosts).toEqual(['docs.example.com', '127.0.0.1:8080']);
    expect(m.capabilities.allowed_paths).toEqual({ '/data': { host: './workspace', mode: 'ro' } });
    expect(m.parameters?.['url']).toEqual({
      type: 'string',
      required: true,
      description: 'Absolute https URL on an allowed host',
    });
  });

  test('host patterns accept host:port, host:*, *.glob, IPv4 and IPv6 forms, stored in normal form', () => {
    const hosts = [
      'docs.example.com',
      'api.example.com:8443',
      'example.com:*',
      '*.example.com',
      '127.0.0.1:8080',
      '[::1]:8080',
      '::1',
    ];
    const m = parseManifest(yamlOf(caps({ allowed_hosts: hosts })), FILE);
    expect(m.capabilities.allowed_hosts).toEqual([...hosts.slice(0, -1), '[::1]']);
  });

  test('a sha256 in upper case is accepted and normalized to lower case', () => {
    const m = parseManifest(yamlOf(manifestWith({ module: { path: 'a.wasm', sha256: 'AB'.repeat(32) } })), FILE);
    expect(m.module.sha256).toBe('ab'.repeat(32));
  });
});

describe('YAML itself', () => {
  test('a YAML syntax error names the file, line and column', () => {
    const err = (() => {
      try {
        parseManifest('apiVersion: toolgate/v1\nname: demo\nparameters: [unclosed\n', FILE);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(ManifestError);
    const me = err as ManifestError;
    expect(me.code).toBe('YAML_SYNTAX');
    expect(me.file).toBe(FILE);
    expect(me.message).toMatch(/line \d+, column \d+/);
    expect(me.message.startsWith(`${FILE}: YAML syntax error at line`)).toBe(true);
  });

  test('a key given twice is a YAML error, not a silent override', () => {
    const err = refusalText('name: demo\nname: other\n');
    expect(err.code).toBe('YAML_SYNTAX');
    expect(err.message).toMatch(/line 2, column 1: Map keys must be unique/);
  });

  test('a document that is not a mapping is refused', () => {
    expect(refusalText('- a\n- b\n').rule).toBe('must be a YAML mapping (key: value) at the top level');
    expect(refusalText('').rule).toBe('must be a YAML mapping (key: value) at the top level');
  });

  test('alias expansion is bounded (no billion laughs)', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i++)
      lines.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(', ')}]`,
      );
    expect(refusalText(`${lines.join('\n')}\n`).code).toBe('YAML_SYNTAX');
  });
});

function refusalText(text: string): ManifestError {
  try {
    parseManifest(text, FILE);
  } catch (err) {
    if (err instanceof ManifestError) return err;
    throw err;
  }
  throw new Error('the manifest was accepted');
}
