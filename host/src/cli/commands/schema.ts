// `toolgate schema`: the tool list in the shape an agent framework takes, for pasting into a
// request or a config. Only the model-visible projection is printed.
import { exportTools, isSchemaFormat, SCHEMA_FORMATS, STRICT_FORMATS } from '../../server/index.js';
import { EXIT, type CliIO, type Command, type ExitCode } from '../command.js';
import { logChoice } from '../logging.js';
import { POLICY_FLAGS, policyFlagsHelp, policyChoice } from '../policy-source.js';
import { manifestsHelp, reportManifestProblems } from '../tool-lookup.js';
import { LOG_FLAGS, logFlagsHelp, parseFlags, UsageError } from '../usage.js';

const HELP = `Usage: toolgate schema [--format mcp|openai|openai-responses|anthropic] [--strict]
                       [--manifests PATH]... [--policies DIR|none] [--policy-set NAME]
                       [--builtin-tools] [--json] [-v|-q]

Prints the tools an agent is served (manifest and installed tools; the built-in echo only with
--builtin-tools) as JSON in the given shape (mcp unless --format says otherwise):
  mcp               the MCP tools/list result: { "tools": [{ name, title?, description,
                    inputSchema, outputSchema? (object outputs only), annotations? }] }
  openai            Chat Completions: [{ "type": "function", "function": { name, description,
                    parameters, strict? } }]
  openai-responses  Responses API: [{ "type": "function", name, description, parameters, strict }]
                    (strict is false unless --strict: that API's default is true)
  anthropic         [{ name, description, input_schema }]
Names are made to fit each API's rule (^[a-zA-Z0-9_-]{1,64}$) and stay unique.

Options:
  --format F          mcp (the default), openai, openai-responses or anthropic
  --strict            OpenAI strict mode (openai formats): every object closed
                      (additionalProperties: false), every property required, optional ones
                      nullable (a null argument means "not given"), no "default"; strict: true
${manifestsHelp(22)}
${policyFlagsHelp(22)}
  --builtin-tools     include the built-in echo tool (as 'serve --builtin-tools' does)
  --json              accepted for symmetry: the output is always JSON
${logFlagsHelp(22)}
  -h, --help          show this help

Exit status: 0 printed, 2 usage, configuration or load error (a manifest that did not load is named
on stderr; the tools that did load are still printed).`;

export const schemaCommand: Command = {
  path: ['schema'],
  summary: 'print the tool list as MCP, OpenAI or Anthropic tool definitions',
  help: HELP,
  async run(argv: string[], io: CliIO): Promise<ExitCode> {
    const { values } = parseFlags(
      argv,
      {
        format: { type: 'string', default: 'mcp' },
        strict: { type: 'boolean', default: false },
        manifests: { type: 'string', multiple: true },
        ...POLICY_FLAGS,
        'builtin-tools': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        ...LOG_FLAGS,
      },
      { min: 0, max: 0 },
    );
    const format = values.format;
    if (!isSchemaFormat(format)) {
      throw new UsageError(`--format: must be one of ${SCHEMA_FORMATS.join(', ')} (got "${String(format)}")`, {
        showUsage: true,
      });
    }
    if (values.strict === true && !STRICT_FORMATS.includes(format)) {
      throw new UsageError(`--strict: only for --format ${STRICT_FORMATS.join(' or ')} (got "${format}")`, {
        showUsage: true,
      });
    }
    const { createRuntime } = await import('../runtime.js');
    const runtime = await createRuntime({
      io,
      manifests: values.manifests ?? [],
      ...policyChoice(values),
      builtinTools: values['builtin-tools'] === true,
      log: logChoice(values),
    });
    try {
      io.stdout(
        `${JSON.stringify(exportTools(runtime.tools.list(), format, { strict: values.strict === true }), null, 2)}\n`,
      );
      // A tool an agent should have but does not is a load error (exit 2), not just a shorter list.
      reportManifestProblems(io, 'schema', runtime.manifestProblems);
      return runtime.manifestProblems.length > 0 ? EXIT.usage : EXIT.ok;
    } finally {
      await runtime.dispose();
    }
  },
};
