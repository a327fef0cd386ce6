// `toolgate inspect <tool>`: everything a person should know before letting an agent call a tool,
// read from its manifest without running the module.
import { spellHidden } from '../../terminal/index.js';
import { join } from 'node:path';
import { toolgateHome } from '../home.js';
import {
  describeCapabilities,
  formatDuration,
  inputSchemaOf,
  loadManifestDirs,
  pluginFromManifest,
  type LoadedManifest,
  type ManifestError,
} from '../../manifest/index.js';
import type { Json, JsonObject } from '../../tool/index.js';
import { EXIT, type CliIO, type Command, type ExitCode } from '../command.js';
import { inspectPluginFile, pluginText } from '../inspect-plugin.js';
import { createLogger, logChoice, logLevel } from '../logging.js';
import { installedSource } from '../manifest-loader.js';
import { manifestSources } from '../manifest-sources.js';
import { didYouMean } from '../suggest.js';
import { manifestsHelp } from '../tool-lookup.js';
import { LOG_FLAGS, logFlagsHelp, parseFlags, UsageError } from '../usage.js';
import { messageOf } from '../../errors/index.js';

const HELP = `Usage: toolgate inspect <tool> [--manifests PATH]... [--json] [-v|-q]
       toolgate inspect ./plugin.wasm [--json]

Shows a tool's description, input schema, output schema and rendering, annotations, module
(path, entry, sha256) and capabilities in plain words. The module is read and its sha256 checked,
but never run. Given a .wasm file (a stock Extism plugin), shows its imports, exports, the PDK
that built it (from its producers section) and what a manifest for it would need.

Options:
${manifestsHelp(20)}
  --json            print one JSON object instead of text
${logFlagsHelp(20)}
  -h, --help        show this help

Exit status: 0 shown, 2 when the tool is not found, a manifest failed to load, or usage is wrong.`;

function indent(text: string, by: string): string {
  return text
    .split('\n')
    .map((l) => (l === '' ? l : by + l))
    .join('\n');
}

/** The JSON form of `--json`; the text form prints the same facts. */
export function inspectReport(loaded: LoadedManifest): JsonObject {
  const m = loaded.manifest;
  const caps = m.capabilities;
  const report: JsonObject = {
    name: m.name,
    version: m.version,
    description: m.description,
    manifest: loaded.file,
    module: {
      path: loaded.modulePath,
      entry: m.module.entry,
      sha256: loaded.sha256,
      pinned: m.module.sha256 !== undefined,
    },
    inputSchema: inputSchemaOf(m, loaded.file),
    output: {
      render: m.output.render,
      encoding: m.output.encoding,
      ...(m.output.schema !== undefined ? { schema: m.output.schema } : {}),
    },
    annotations: definedKeys(m.annotations ?? {}),
    capabilities: {
      allowedHosts: [...caps.allowed_hosts],
      allowedPaths: structuredClone(loaded.allowedPaths),
      maxPages: caps.memory.max_pages,
      maxHttpResponseBytes: caps.memory.max_http_response_bytes,
      timeoutMs: caps.timeout_ms,
      maxOutputBytes: caps.max_output_bytes,
      maxInputBytes: caps.max_input_bytes,
      configKeys: Object.keys(caps.config),
      secrets: [...caps.secrets],
    },
    capabilityDescription: describeCapabilities(m),
  };
  if (m.pool !== undefined) report['pool'] = definedKeys(m.pool);
  return report;
}

function textReport(loaded: LoadedManifest): string {
  const m = loaded.manifest;
  const out: string[] = [];
  const title = m.annotations?.title;
  out.push(`${m.name} ${m.version}${title !== undefined ? ` — ${title}` : ''}`);
  out.push(indent(m.description, '  '), '');
  out.push(`manifest: ${loaded.file}`);
  out.push(`module:   ${loaded.modulePath}`);
  out.push(`  entry:  ${m.module.entry}`);
  out.push(
    `  sha256: ${loaded.sha256} (${m.module.sha256 !== undefined ? 'pinned by the manifest' : 'not pinned by the manifest'})`,
    '',
  );
  out.push('input schema:', indent(JSON.stringify(inputSchemaOf(m, loaded.file), null, 2), '  '), '');
  const render =
    typeof m.output.render === 'string' ? m.output.render : `template ${JSON.stringify(m.output.render.template)}`;
  out.push('output:', `  encoding: ${m.output.encoding}`, `  render:   ${render}`);
  if (m.output.schema !== undefined) out.push('  schema:', indent(JSON.stringify(m.output.schema, null, 2), '    '));
  out.push('');
  const hints = Object.entries(m.annotations ?? {}).filter(([k]) => k !== 'title');
  out.push(
    'annotations:',
    hints.length === 0 ? '  (none)' : hints.map(([k, v]) => `  ${k}: ${String(v)}`).join('\n'),
    '',
  );
  out.push('capabilities:', ...describeCapabilities(m).map((l) => `  - ${l}`));
  const real = Object.entries(loaded.allowedPaths);
  if (real.length > 0) out.push('  mounts resolve to:', ...real.map(([g, p]) => `    ${g} -> ${p.host} (${p.mode})`));
  if (m.pool !== undefined) {
    const parts = [
      m.pool.max !== undefined ? `up to ${m.pool.max} instances` : '',
      m.pool.idle_ms !== undefined ? `idle instances kept ${formatDuration(m.pool.idle_ms)}` : '',
    ];
    out.push(`pool: ${parts.filter((p) => p !== '').join(', ')}`);
  }
  return `${out.join('\n')}\n`;
}

/** A hyper-mcp plugin's tools (served names and schemas), resources, templates and prompts, as described. */
async function servedReport(loaded: LoadedManifest): Promise<JsonObject> {
  const plugin = await pluginFromManifest(loaded);
  try {
    return {
      abi: 'hyper-mcp',
      interface: plugin.interface,
      tools: plugin.tools.map(
        (t) =>
          ({
            name: t.name,
            description: t.description,
            inputSchema: structuredClone(t.inputSchema ?? {}),
          }) as JsonObject,
      ),
      resources: plugin.surface?.resources.map((r) => ({ ...r })) ?? [],
      resourceTemplates: plugin.surface?.resourceTemplates.map((r) => ({ ...r })) ?? [],
      prompts: plugin.surface?.prompts.map((p) => ({ ...p })) ?? [],
      operations: plugin.operations.map((o) => o.name),
      problems: plugin.problems.map((p) => p.message),
    };
  } finally {
    await plugin.dispose();
  }
}

function servedText(r: JsonObject): string {
  const out: string[] = [`served (hyper-mcp ${String(r['interface'])}):`];
  for (const t of r['tools'] as JsonObject[])
    out.push(
      `  tool ${String(t['name'])}: ${String(t['description'])}`,
      indent(JSON.stringify(t['inputSchema'], null, 2), '    '),
    );
  for (const x of r['resources'] as JsonObject[]) out.push(`  resource ${String(x['uri'])} (${String(x['name'])})`);
  for (const x of r['resourceTemplates'] as JsonObject[])
    out.push(`  resource template ${String(x['uriTemplate'])} (${String(x['name'])})`);
  for (const x of r['prompts'] as JsonObject[]) out.push(`  prompt ${String(x['name'])}`);
  for (const o of r['operations'] as string[]) out.push(`  operation ${o} (policies name it)`);
  for (const p of r['problems'] as string[]) out.push(`  REFUSED: ${p}`);
  return `${out.join('\n')}\n`;
}

function reportErrors(io: CliIO, errors: ManifestError[]): void {
  for (const e of errors) io.stderr(`toolgate inspect: ${e.message}\n`);
}

/** The manifest that defines `name`, from --manifests or the defaults (./manifests, this folder, the store). */
async function findManifest(
  name: string,
  given: string[],
  io: CliIO,
  log: ReturnType<typeof logChoice>,
): Promise<{ found: LoadedManifest; errors: ManifestError[] }> {
  const sources = manifestSources(given, io.cwd);
  const paths = [...sources.paths];
  if (!sources.explicit) {
    // Same defaults as `call` and `serve` (docs/cli.md): ./manifests plus the installed store.
    const logger = await createLogger(io, logLevel(io, log, 'warn'));
    const storeDir = toolgateHome(io.env, io.cwd);
    paths.push(...(await installedSource(storeDir, logger).dirs()));
  }
  const { manifests, errors } = await loadManifestDirs(paths, { ignoreMissingDirs: !sources.explicit });
  // a hyper-mcp module's tool is served as <plugin>__<tool>: its manifest is the plugin's
  const plugin = name.includes('__') ? name.slice(0, name.indexOf('__')) : undefined;
  const found =
    manifests.find((l) => l.manifest.name === name) ??
    manifests.find((l) => l.manifest.name === plugin && l.manifest.module.abi === 'hyper-mcp');
  if (found !== undefined) return { found, errors };
  const own = errors.find((e) => new RegExp(`[\\\\/]${name.replace(/[^A-Za-z0-9_-]/g, '.')}\\.ya?ml$`).test(e.file));
  if (own !== undefined) throw new UsageError(`tool "${name}" did not load: ${own.message}`);
  reportErrors(io, errors);
  const where =
    paths.length > 0 ? ` (looked in ${paths.join(', ')})` : ' (no manifests found here; name them with --manifests)';
  throw new UsageError(
    `no tool named "${name}"${didYouMean(
      name,
      manifests.map((l) => l.manifest.name),
      (s) => `"${s}"`,
    )}${where}`,
  );
}

export const inspectCommand: Command = {
  path: ['inspect'],
  summary: "show a tool's schema, annotations and what it may touch",
  help: HELP,
  async run(argv: string[], io: CliIO): Promise<ExitCode> {
    const { values, positionals } = parseFlags(
      argv,
      { manifests: { type: 'string', multiple: true }, json: { type: 'boolean', default: false }, ...LOG_FLAGS },
      { min: 1, max: 1, what: 'tool name' },
    );
    const name = positionals[0] as string;
    const json = values.json === true;
    if (name.toLowerCase().endsWith('.wasm')) {
      let report;
      try {
        report = await inspectPluginFile(name, io.cwd);
      } catch (err) {
        throw new UsageError(messageOf(err));
      }
      io.stdout(json ? `${JSON.stringify(report, null, 2)}\n` : spellHidden(pluginText(report)));
      return EXIT.ok;
    }
    const { found, errors } = await findManifest(name, values.manifests ?? [], io, logChoice(values));
    reportErrors(io, errors);
    if (found.manifest.module.abi === 'hyper-mcp') {
      // what the plugin serves is known only from the module: it is described in the sandbox (never called)
      let served: JsonObject;
      try {
        served = await servedReport(found);
      } catch (err) {
        throw new UsageError(`plugin "${found.manifest.name}" did not load: ${messageOf(err)}`);
      }
      const report = { ...inspectReport(found), ...served };
      io.stdout(
        json ? `${JSON.stringify(report, null, 2)}\n` : spellHidden(`${textReport(found)}\n${servedText(served)}`),
      );
      return errors.length > 0 || (served['problems'] as unknown[]).length > 0 ? EXIT.usage : EXIT.ok;
    }
    io.stdout(json ? `${JSON.stringify(inspectReport(found), null, 2)}\n` : spellHidden(textReport(found)));
    return errors.length > 0 ? EXIT.usage : EXIT.ok;
  },
};

/** A parsed manifest section as JSON: zod types an optional key as `T | undefined`; JSON has no undefined. */
function definedKeys(section: Readonly<Record<string, Json | undefined>>): JsonObject {
  return Object.fromEntries(Object.entries(section).filter((e): e is [string, Json] => e[1] !== undefined));
}
