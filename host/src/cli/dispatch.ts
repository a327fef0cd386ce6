// Picks the command whose words start argv (longest match first) and runs it. Never throws: a
// command that fails unexpectedly is reported and exits 2, not with a stack trace.
import { EXIT, type CliIO, type Command, type ExitCode } from './command.js';
import { commands as builtinCommands, type CommandEntry } from './commands/index.js';
import { UsageError, groupHelp, topHelp } from './usage.js';

export const VERSION = '0.1.0';

function isHelp(arg: string | undefined): boolean {
  return arg === '--help' || arg === '-h';
}

export async function runCli(argv: string[], io: CliIO, commands: readonly CommandEntry[] = builtinCommands): Promise<ExitCode> {
  const first = argv[0];
  if (first === undefined) {
    io.stderr(`${topHelp(commands)}\n`);
    return EXIT.usage;
  }
  if (isHelp(first) || first === 'help') {
    io.stdout(`${topHelp(commands)}\n`);
    return EXIT.ok;
  }
  if (first === '--version' || first === '-v') {
    io.stdout(`${VERSION}\n`);
    return EXIT.ok;
  }
  const match = [...commands]
    .sort((a, b) => b.path.length - a.path.length)
    .find((c) => c.path.every((w, i) => argv[i] === w));
  if (match === undefined) {
    // `toolgate policy` alone: the word groups subcommands.
    const words = argv.filter((a) => !a.startsWith('-'));
    const prefix = words.slice(0, 1);
    if (prefix.length > 0 && commands.some((c) => c.path.length > 1 && c.path[0] === prefix[0])) {
      const help = groupHelp(prefix, commands);
      if (argv.some(isHelp)) {
        io.stdout(`${help}\n`);
        return EXIT.ok;
      }
      io.stderr(`toolgate: '${argv.slice(0, 2).join(' ')}' is not a command\n\n${help}\n`);
      return EXIT.usage;
    }
    io.stderr(`toolgate: unknown command '${first}'\n\n${topHelp(commands)}\n`);
    return EXIT.usage;
  }
  let command: Command;
  try {
    command = 'load' in match ? await match.load() : match;
  } catch (err) {
    io.stderr(`toolgate ${match.path.join(' ')}: cannot load the command: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.usage;
  }
  const rest = argv.slice(match.path.length);
  // `--help` anywhere before a `--` shows the command's help, so every command has it.
  const end = rest.indexOf('--');
  if ((end === -1 ? rest : rest.slice(0, end)).some(isHelp)) {
    io.stdout(`${command.help}\n`);
    return EXIT.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    const name = match.path.join(' ');
    if (err instanceof UsageError) io.stderr(`toolgate ${name}: ${err.message}\n`);
    else io.stderr(`toolgate ${name}: unexpected error: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.usage;
  }
}
