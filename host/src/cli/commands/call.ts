// `toolgate call <tool>`: one call through the whole pipeline, for people and scripts.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ContentBlock, ToolResult } from '../../tool/index.js';
import { EXIT, type CliIO, type Command, type ExitCode } from '../command.js';
import { POLICY_FLAGS, policyFlagsHelp, policyChoice, type PolicyChoice } from '../policy-source.js';
import { adHocPlugin, isPluginFile, type AdHocPlugin } from '../plugin-file.js';
import { logChoice, type LogChoice } from '../logging.js';
import { manifestsHelp, missingTool, reportManifestProblems } from '../tool-lookup.js';
import { LOG_FLAGS, logFlagsHelp, parseFlags, UsageError } from '../usage.js';
import { messageOf } from '../../errors/index.js';

const HELP = `Usage: toolgate call <tool> [--args JSON | --args-file FILE] [--manifests PATH]...
                    [--policies DIR|none] [--policy-set NAME] [--json] [--agent NAME] [-v|-q]
       toolgate call ./plugin.wasm --entry NAME [--input TEXT] [--policies DIR|none] [--json]

Runs one call of <tool> through the policy pipeline and prints its content. Given a .wasm file
(a stock Extism plugin) instead, calls its export NAME with TEXT as raw input and prints the
output as text, with no capabilities (no network, no files), through the same pipeline.

Options:
  --args JSON         the arguments, a JSON object (default {})
  --args-file FILE    read the arguments from FILE ('-' for stdin)
${manifestsHelp(22)}
${policyFlagsHelp(22)}
  --json              print the whole result (ToolResult) as one line of JSON
  --agent NAME        the agent this call is made for (policies may act on it)
  --entry NAME        with a .wasm file: the export to call
  --input TEXT        with a .wasm file: the raw input (default empty)
${logFlagsHelp(22)}
  -h, --help          show this help

On a terminal the tool's own log lines (info) are shown on stderr; elsewhere the log level is warn
unless -v or TOOLGATE_LOG_LEVEL says otherwise.

Exit status: 0 the result is not an error, 1 it is, 2 usage, configuration or load error (an
unknown tool, a manifest that does not load, bad flags or arguments).`;

interface CallFlags {
  tool: string;
  argsText: string | undefined;
  argsFrom: string;
  manifests: string[];
  policy: PolicyChoice;
  json: boolean;
  agent: string | undefined;
  entry: string | undefined;
  input: string | undefined;
  log: LogChoice;
}

function parse(argv: string[]): CallFlags {
  const parsed = parseFlags(
    argv,
    {
      args: { type: 'string' },
      'args-file': { type: 'string' },
      manifests: { type: 'string', multiple: true },
      ...POLICY_FLAGS,
      json: { type: 'boolean', default: false },
      agent: { type: 'string' },
      entry: { type: 'string' },
      input: { type: 'string' },
      ...LOG_FLAGS,
    },
    { min: 1, max: 1, what: 'tool name' },
  );
  const { values, positionals } = parsed;
  if (positionals[0] === undefined) throw new UsageError('expected exactly 1 tool name');
  if (values.args !== undefined && values['args-file'] !== undefined) {
    throw new UsageError('give either --args or --args-file, not both');
  }
  return {
    tool: positionals[0],
    argsText: values.args,
    argsFrom: values['args-file'] ?? '',
    manifests: values.manifests ?? [],
    policy: policyChoice(values),
    json: values.json === true,
    agent: values.agent,
    entry: values.entry,
    input: values.input,
    log: logChoice(values),
  };
}

async function readArgs(flags: CallFlags, io: CliIO): Promise<unknown> {
  let text = flags.argsText;
  let flag = '--args';
  if (flags.argsFrom !== '') {
    flag = `--args-file ${flags.argsFrom}`;
    try {
      text =
        flags.argsFrom === '-' ? await readStream(io.stdin) : await readFile(resolve(io.cwd, flags.argsFrom), 'utf8');
    } catch (err) {
      throw new UsageError(`--args-file: cannot read ${flags.argsFrom}: ${messageOf(err)}`);
    }
  }
  if (text === undefined) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`${flag}: not valid JSON: ${messageOf(err)}`);
  }
}

async function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Content as a person reads it: text blocks as is, images as a one-line note. */
export function contentText(result: ToolResult): string {
  return result.content.map((b) => describeBlock(b)).join('\n');
}

export const callCommand: Command = {
  path: ['call'],
  summary: 'call one tool through the policy pipeline and print the result',
  help: HELP,
  async run(argv: string[], io: CliIO): Promise<ExitCode> {
    const flags = parse(argv);
    let plugin: AdHocPlugin | undefined;
    if (isPluginFile(flags.tool)) {
      if (flags.argsText !== undefined || flags.argsFrom !== '')
        throw new UsageError('with a .wasm file give --input TEXT, not --args');
      plugin = await adHocPlugin(flags.tool, flags.entry, io.cwd);
      Object.assign(flags, {
        tool: plugin.tool,
        manifests: [plugin.dir],
        argsText: JSON.stringify({ input: flags.input ?? '' }),
      });
    } else if (flags.entry !== undefined || flags.input !== undefined) {
      throw new UsageError('--entry and --input are for calling a .wasm file; a tool takes --args');
    }
    try {
      return await callOnce(flags, io);
    } finally {
      await plugin?.cleanup();
    }
  },
};

async function callOnce(flags: CallFlags, io: CliIO): Promise<ExitCode> {
  const args = await readArgs(flags, io);
  const { createRuntime } = await import('../runtime.js');
  // A person at a terminal sees the tool's own log lines (info); scripts get warnings only.
  const runtime = await createRuntime({
    io,
    manifests: flags.manifests,
    ...flags.policy,
    log: flags.log,
    defaultLogLevel: io.stderrIsTTY === true ? 'info' : 'warn',
  });
  try {
    if (runtime.tools.get(flags.tool) === undefined) throw missingTool(flags.tool, runtime);
    reportManifestProblems(io, 'call', runtime.manifestProblems);
    const result = await runtime.pipeline.call(flags.tool, args, {
      ...(flags.agent !== undefined ? { agent: flags.agent } : {}),
      ...(io.signal !== undefined ? { signal: io.signal } : {}),
    });
    if (flags.json) {
      io.stdout(`${JSON.stringify(result)}\n`);
    } else {
      const text = contentText(result);
      if (text !== '') io.stdout(`${text}\n`);
      if (result.isError) io.stderr(`toolgate call: ${flags.tool} failed (${result.error?.code ?? 'error'})\n`);
    }
    return result.isError ? EXIT.failed : EXIT.ok;
  } finally {
    await runtime.dispose();
  }
}

/** A person reads text as is and a placeholder for anything else. */
function describeBlock(b: ContentBlock): string {
  switch (b.type) {
    case 'text':
      return b.text;
    case 'image':
    case 'audio':
      return `[${b.type} ${b.mimeType}, ${b.data.length} base64 chars]`;
    case 'resource':
      return 'text' in b.resource
        ? `[resource ${b.resource.uri}]\n${b.resource.text}`
        : `[resource ${b.resource.uri}, ${b.resource.blob.length} base64 chars]`;
    case 'resource_link':
      return `[link ${b.name}: ${b.uri}]`;
  }
}
