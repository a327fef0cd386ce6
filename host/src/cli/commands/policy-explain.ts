// `toolgate policy explain <tool> --args JSON`: the decision chain a call would get, without
// running the tool (pre-execute in dry-run mode, then guards; rate limits count nothing).
import { formatExplanation } from '../../policy/index.js';
import { EXIT, type CliIO, type Command, type ExitCode } from '../command.js';
import { POLICY_FLAGS, policyFlagsHelp, policyChoice } from '../policy-source.js';
import { logChoice } from '../logging.js';
import { manifestsHelp, missingTool, reportManifestProblems } from '../tool-lookup.js';
import { LOG_FLAGS, logFlagsHelp, parseFlags, UsageError } from '../usage.js';
import { messageOf } from '../../errors/index.js';

const HELP = `Usage: toolgate policy explain <tool> [--args JSON] [--policies DIR|none] [--policy-set NAME]
                              [--manifests PATH]...
                              [--agent NAME] [--json] [-v|-q]

Shows which policy entry would decide a call of <tool> with these arguments, and why,
without running the tool. Rate limits are not consumed; nobody is asked for approval.

Options:
  --args JSON       the arguments, a JSON object (default {})
${policyFlagsHelp(20)}
${manifestsHelp(20)}
  --agent NAME      the agent the call would be made for
  --json            print the explanation as one line of JSON
${logFlagsHelp(20)}
  -h, --help        show this help

Exit status: 0 the call would be allowed, 1 it would be denied or needs approval (or the
arguments are wrong), 2 usage, configuration or load error (an unknown tool included).`;

function parse(argv: string[]) {
  const parsed = parseFlags(
    argv,
    {
      args: { type: 'string' },
      ...POLICY_FLAGS,
      manifests: { type: 'string', multiple: true },
      agent: { type: 'string' },
      json: { type: 'boolean', default: false },
      ...LOG_FLAGS,
    },
    { min: 1, max: 1, what: 'tool name' },
  );
  const { values, positionals } = parsed;
  if (positionals[0] === undefined) throw new UsageError('expected exactly 1 tool name');
  let args: unknown = {};
  if (values.args !== undefined) {
    try {
      args = JSON.parse(values.args) as unknown;
    } catch (err) {
      throw new UsageError(`--args: not valid JSON: ${messageOf(err)}`);
    }
  }
  return {
    tool: positionals[0],
    args,
    policy: policyChoice(values),
    manifests: values.manifests ?? [],
    agent: values.agent,
    json: values.json === true,
    log: logChoice(values),
  };
}

export const policyExplainCommand: Command = {
  path: ['policy', 'explain'],
  summary: 'show which policy entry would allow, deny or ask for a call, and why',
  help: HELP,
  async run(argv: string[], io: CliIO): Promise<ExitCode> {
    const flags = parse(argv);
    const { createRuntime } = await import('../runtime.js');
    let runtime;
    try {
      runtime = await createRuntime({ io, manifests: flags.manifests, ...flags.policy, log: flags.log });
    } catch (err) {
      if (err instanceof UsageError) throw err;
      // A broken policy set or manifest is a configuration error: exit 2 with its message.
      throw new UsageError(messageOf(err));
    }
    try {
      // a hyper-mcp plugin's operations (p__resources__read ...) are explained by the same name
      const operation =
        runtime.tools.get(flags.tool) === undefined && runtime.tools.operation(flags.tool) !== undefined;
      if (runtime.tools.get(flags.tool) === undefined && !operation) throw missingTool(flags.tool, runtime);
      reportManifestProblems(io, 'policy explain', runtime.manifestProblems);
      const e = await runtime.pipeline.explain(flags.tool, flags.args, {
        ...(flags.agent !== undefined ? { agent: flags.agent } : {}),
        ...(operation ? { operation } : {}),
      });
      io.stdout(flags.json ? `${JSON.stringify(e)}\n` : formatExplanation(e));
      return e.outcome === 'allow' ? EXIT.ok : EXIT.failed;
    } finally {
      await runtime.dispose();
    }
  },
};
