// `toolgate schema`: the tool list in the shape an agent framework takes, for pasting into a
// request or a config. Only the model-visible projection is printed.
import { parseArgs } from 'node:util';
import { exportTools, isSchemaFormat, SCHEMA_FORMATS } from '../../server/index.js';
import { EXIT, type CliIO, type Command, type ExitCode } from '../command.js';
import { POLICY_FLAGS, policyFlagsHelp, policyChoice } from '../policy-source.js';
import { UsageError } from '../usage.js';

const HELP = `Usage: toolgate schema --format mcp|openai|anthropic [--manifests DIR]...
                       [--policies DIR|none] [--policy-set NAME] [--builtin-tools]

Prints the tools an agent is served (manifest and installed tools; the built-in echo only with
--builtin-tools) as JSON in the given shape:
  mcp        the MCP tools/list result: { "tools": [{ name, title?, description, inputSchema,
             outputSchema? (object outputs only), annotations? }] }
  openai     [{ "type": "function", "function": { name, description, parameters } }]
  anthropic  [{ name, description, input_schema }]
Names are made to fit each API's rule (^[a-zA-Z0-9_-]{1,64}$) and stay unique.

Options:
  --format F          mcp, openai or anthropic (required)
  --manifests DIR     folder of tool manifests (repeatable; default ./manifests and the store)
${policyFlagsHelp(22)}
  --builtin-tools     include the built-in echo tool (as 'serve --builtin-tools' does)
  -h, --help          show this help`;

export const schemaCommand: Command = {
  path: ['schema'],
  summary: 'print the tool list as MCP, OpenAI or Anthropic tool definitions',
  help: HELP,
  async run(argv: string[], io: CliIO): Promise<ExitCode> {
    let values;
    try {
      ({ values } = parseArgs({
        args: argv,
        strict: true,
        allowPositionals: false,
        options: { format: { type: 'string' }, manifests: { type: 'string', multiple: true }, ...POLICY_FLAGS, 'builtin-tools': { type: 'boolean', default: false } },
      }));
    } catch (err) {
      throw new UsageError(`${err instanceof Error ? err.message : String(err)}\nRun 'toolgate schema --help' for usage.`);
    }
    const format = values.format;
    if (!isSchemaFormat(format)) {
      throw new UsageError(`--format: must be one of ${SCHEMA_FORMATS.join(', ')}${format === undefined ? '' : ` (got "${format}")`}`);
    }
    const { createRuntime } = await import('../runtime.js');
    const runtime = await createRuntime({
      io,
      manifests: values.manifests ?? [],
      ...policyChoice(values),
      builtinTools: values['builtin-tools'] === true,
    });
    try {
      io.stdout(`${JSON.stringify(exportTools(runtime.tools.list(), format), null, 2)}\n`);
      return EXIT.ok;
    } finally {
      await runtime.dispose();
    }
  },
};
