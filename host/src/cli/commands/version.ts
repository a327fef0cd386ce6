// `toolgate version` (also `--version`): the version in package.json, the one place it is kept.
import { EXIT, type CliIO, type Command, type ExitCode } from '../command.js';
import { toolgateVersion } from '../package-root.js';
import { parseFlags } from '../usage.js';

const HELP = `Usage: toolgate version [--json]
       toolgate --version

Prints toolgate's version.

Options:
  --json        print {"version": "...", "node": "..."} on one line
  -h, --help    show this help`;

export const versionCommand: Command = {
  path: ['version'],
  summary: "print toolgate's version",
  help: HELP,
  async run(argv: string[], io: CliIO): Promise<ExitCode> {
    const { values } = parseFlags(argv, { json: { type: 'boolean', default: false } }, { min: 0, max: 0 });
    const version = toolgateVersion();
    io.stdout(values.json === true ? `${JSON.stringify({ version, node: process.versions.node })}\n` : `${version}\n`);
    return EXIT.ok;
  },
};

/** `toolgate help [COMMAND...]`: the dispatcher answers it (it needs the command table); listed for help. */
export const helpCommand: Command = {
  path: ['help'],
  summary: 'show the help of a command (toolgate help call)',
  help: `Usage: toolgate help [COMMAND...]

Shows the help of COMMAND (e.g. 'toolgate help call', 'toolgate help trust add'), or the list of
commands. Same as 'toolgate COMMAND --help'.`,
  run: () => Promise.reject(new Error('help is answered by the dispatcher')),
};
