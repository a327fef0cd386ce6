// `toolgate policy show`: which policy set is in force, where it came from, and its entries in
// the order they mount (the order that decides who may deny first). Reads and validates the set
// without mounting it, so it answers the same wherever it is run.
import { relative } from 'node:path';
import { EXIT, type CliIO, type Command, type ExitCode } from '../command.js';
import {
  noPolicyWarning,
  POLICY_FLAGS,
  policyChoice,
  policyFlagsHelp,
  resolvePolicySource,
  type PolicySource,
} from '../policy-source.js';
import { parseFlags, UsageError } from '../usage.js';
import { messageOf } from '../../errors/index.js';

const HELP = `Usage: toolgate policy show [--policies DIR|none] [--policy-set NAME] [--json]

Shows the policy set a command run here would use, where it came from, and its entries in
order. Lookup: --policies DIR, then $TOOLGATE_POLICIES, then $TOOLGATE_HOME/policies
(default ~/.toolgate/policies), then ./policies, then the default set shipped with toolgate.
A folder of named sets means its default/ set (or --policy-set NAME).

Options:
${policyFlagsHelp(22)}
  --json              print it as one line of JSON
  -h, --help          show this help

Exit status: 0 shown, 2 usage or configuration error (a missing, empty or broken set).`;

interface ShownEntry {
  id: string;
  use: string;
  file: string;
  disabled: boolean;
}

type Shown =
  | { policies: 'none'; from: string; warning: string }
  | {
      policies: 'set';
      name: string;
      origin: string;
      from: string;
      dir: string;
      files: string[];
      entries: ShownEntry[];
    };

async function describe(source: PolicySource): Promise<Shown> {
  if (source.kind === 'none')
    return { policies: 'none', from: source.from, warning: (noPolicyWarning(source) ?? '').trim() };
  const { parsePolicySet } = await import('../../policy/index.js');
  let set;
  try {
    set = await parsePolicySet(source.dir);
  } catch (err) {
    throw new UsageError(`policy set ${source.dir}: ${messageOf(err)}`);
  }
  return {
    policies: 'set',
    name: source.name,
    origin: source.origin,
    from: source.from,
    dir: source.dir,
    files: set.files.map((f) => relative(source.dir, f)),
    entries: set.entries.map((e) => ({
      id: e.id,
      use: e.use,
      file: relative(source.dir, e.file),
      disabled: e.disabled,
    })),
  };
}

function text(shown: Shown): string {
  if (shown.policies === 'none') return `no policies (${shown.from})\n${shown.warning}\n`;
  const idWidth = Math.max(2, ...shown.entries.map((e) => e.id.length));
  const useWidth = Math.max(3, ...shown.entries.map((e) => e.use.length));
  const lines = shown.entries.map(
    (e, i) =>
      `  ${String(i + 1).padStart(2)}. ${e.id.padEnd(idWidth)}  ${e.use.padEnd(useWidth)}  ${e.file}${e.disabled ? '  (disabled)' : ''}`,
  );
  return [
    `policy set: ${shown.name}`,
    `from:       ${shown.from}`,
    `folder:     ${shown.dir}`,
    `entries (in order):`,
    ...(lines.length > 0 ? lines : ['  (none: this set allows every call)']),
    '',
  ].join('\n');
}

export const policyShowCommand: Command = {
  path: ['policy', 'show'],
  summary: 'show which policy set is in force, where it came from, and its entries in order',
  help: HELP,
  async run(argv: string[], io: CliIO): Promise<ExitCode> {
    let values;
    try {
      ({ values } = parseFlags(
        argv,
        { ...POLICY_FLAGS, json: { type: 'boolean', default: false } },
        { min: 0, max: 0 },
      ));
    } catch (err) {
      throw new UsageError(`${messageOf(err)}\nRun 'toolgate policy show --help' for usage.`);
    }
    const shown = await describe(resolvePolicySource(policyChoice(values), io));
    io.stdout(values.json === true ? `${JSON.stringify(shown)}\n` : text(shown));
    return EXIT.ok;
  },
};
