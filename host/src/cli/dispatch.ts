// Picks the command whose words start argv (longest match first) and runs it. Never throws: a
// command that fails unexpectedly is reported and exits 2, not with a stack trace.
import { EXIT, type CliIO, type Command, type ExitCode } from './command.js';
import { commands as builtinCommands, type CommandEntry } from './commands/index.js';
import { toolgateVersion } from './package-root.js';
import { didYouMean } from './suggest.js';
import { UsageError, groupHelp, topHelp } from './usage.js';
import { messageOf } from '../errors/index.js';

function isHelp(arg: string | undefined): boolean {
  return arg === '--help' || arg === '-h';
}

const quoted = (s: string): string => `'${s}'`;

/** The entry whose words start `words` (longest first). */
function findEntry(words: readonly string[], commands: readonly CommandEntry[]): CommandEntry | undefined {
  return [...commands]
    .sort((a, b) => b.path.length - a.path.length)
    .find((c) => c.path.every((w, i) => words[i] === w));
}

async function load(entry: CommandEntry): Promise<Command> {
  return 'load' in entry ? entry.load() : entry;
}

/**
 * No command matched: a group word with a wrong or missing subcommand lists the group; anything
 * else is an unknown command with the closest one suggested (never the whole help: it hides the hint).
 */
function unknownCommand(argv: string[], io: CliIO, commands: readonly CommandEntry[]): ExitCode {
  const [first = '', second] = argv;
  const group = commands.filter((c) => c.path.length > 1 && c.path[0] === first);
  if (group.length > 0) {
    const help = groupHelp([first], commands);
    if (second === undefined || isHelp(second)) {
      if (second !== undefined) return (io.stdout(`${help}\n`), EXIT.ok);
      io.stderr(`toolgate ${first}: a subcommand is needed\n\n${help}\n`);
      return EXIT.usage;
    }
    const hint = didYouMean(
      `${first} ${second}`,
      group.map((c) => c.path.join(' ')),
      quoted,
    );
    io.stderr(`toolgate: '${first} ${second}' is not a command${hint}\n\n${help}\n`);
    return EXIT.usage;
  }
  const known = new Set(commands.map((c) => c.path[0] ?? ''));
  const what = first.startsWith('-') ? `unknown option '${first}'` : `unknown command '${first}'`;
  io.stderr(
    `toolgate: ${what}${didYouMean(first, first.startsWith('-') ? ['--help', '--version'] : known, quoted)}\nRun 'toolgate help' for the list of commands.\n`,
  );
  return EXIT.usage;
}

/** `toolgate help WORDS`: the help of the command WORDS name, of a group, or the command list. */
async function help(words: string[], io: CliIO, commands: readonly CommandEntry[]): Promise<ExitCode> {
  if (words.length === 0) return (io.stdout(`${topHelp(commands)}\n`), EXIT.ok);
  const entry = findEntry(words, commands);
  if (entry !== undefined) return (io.stdout(`${(await load(entry)).help}\n`), EXIT.ok);
  return unknownCommand(
    words.length === 1 && commands.some((c) => c.path.length > 1 && c.path[0] === words[0])
      ? [...words, '--help']
      : words,
    io,
    commands,
  );
}

export async function runCli(
  argv: string[],
  io: CliIO,
  commands: readonly CommandEntry[] = builtinCommands,
): Promise<ExitCode> {
  const first = argv[0];
  if (first === undefined) {
    io.stderr(`${topHelp(commands)}\n`);
    return EXIT.usage;
  }
  if (isHelp(first)) return (io.stdout(`${topHelp(commands)}\n`), EXIT.ok);
  if (first === 'help') {
    // `help --help` is help's own help; elsewhere --help adds nothing to `help WORDS`.
    const rest = argv.slice(1);
    return help(rest.length > 0 && rest.every(isHelp) ? ['help'] : rest.filter((a) => !isHelp(a)), io, commands);
  }
  // -v alone is the old spelling of --version; after a command it means --verbose.
  if (first === '--version' || first === '-V' || (first === '-v' && argv.length === 1)) {
    io.stdout(`${toolgateVersion()}\n`);
    return EXIT.ok;
  }
  const match = findEntry(argv, commands);
  if (match === undefined) return unknownCommand(argv, io, commands);
  const name = match.path.join(' ');
  let command: Command;
  try {
    command = await load(match);
  } catch (err) {
    io.stderr(`toolgate ${name}: cannot load the command: ${messageOf(err)}\n`);
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
    if (err instanceof UsageError) {
      io.stderr(
        `toolgate ${name}: ${err.message}\n${err.showUsage ? `Run 'toolgate ${name} --help' for usage.\n` : ''}`,
      );
    } else {
      io.stderr(`toolgate ${name}: unexpected error: ${messageOf(err)}\n`);
    }
    return EXIT.usage;
  }
}
