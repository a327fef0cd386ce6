// Help text for the whole command, a usage error type every command can throw, and the one way
// commands parse their flags.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { codeOf, messageOf, ToolgateError } from '../errors/index.js';
import { didYouMean } from './suggest.js';

/** What help needs of a command (a loaded one or a lazy table entry). */
type Listed = { path: string[]; summary: string };

/**
 * A mistake in how the command was invoked or configured: exit 2, message on stderr. `showUsage`
 * adds "Run 'toolgate CMD --help' for usage." (for mistakes in the command line, not in a file).
 */
export class UsageError extends ToolgateError<'USAGE'> {
  readonly showUsage: boolean;
  constructor(message: string, options: { showUsage?: boolean } = {}) {
    super('USAGE', message);
    this.showUsage = options.showUsage === true;
  }
}

export function topHelp(commands: readonly Listed[]): string {
  const width = Math.max(...commands.map((c) => c.path.join(' ').length), 4);
  const lines = commands.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`);
  return [
    'Usage: toolgate <command> [options]',
    '',
    'Runs untrusted WebAssembly tools for AI agents behind a policy pipeline and a sandbox.',
    '',
    'Commands:',
    ...lines,
    '',
    "Run 'toolgate help <command>' or 'toolgate <command> --help' for a command's options;",
    "'toolgate --version' prints the version. Full reference: docs/cli.md.",
    '',
    'Exit status: 0 success, 1 the tool call (or check) failed, 2 usage, configuration or load error.',
  ].join('\n');
}

/** Help for a word that only groups subcommands, e.g. `toolgate policy`. */
export function groupHelp(prefix: string[], commands: readonly Listed[]): string {
  const subs = commands.filter((c) => prefix.every((w, i) => c.path[i] === w));
  const width = Math.max(...subs.map((c) => c.path.join(' ').length));
  return [
    `Usage: toolgate ${prefix.join(' ')} <subcommand> [options]`,
    '',
    'Subcommands:',
    ...subs.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`),
  ].join('\n');
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** The flag spellings a command knows, for "did you mean". */
function knownFlags(options: Options): string[] {
  return [
    ...Object.entries(options).flatMap(([name, o]) => [`--${name}`, ...(o.short !== undefined ? [`-${o.short}`] : [])]),
    '--help',
  ];
}

/** Node's parser messages, said the way the rest of toolgate says things, with a suggestion. */
function flagProblem(err: unknown, options: Options): string {
  const message = messageOf(err);
  const code = codeOf(err);
  const flag = /'(-[^' ]*)/.exec(message)?.[1];
  if (flag === undefined) return message;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${flag}${didYouMean(flag, knownFlags(options))}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return /does not take/.test(message) ? `${flag} takes no value` : `${flag} needs a value`;
  }
  return message;
}

/**
 * Strict flags plus a positional count: an unknown flag (with the closest known one suggested), a
 * missing flag value or the wrong number of positionals is a UsageError (exit 2).
 */
export function parseFlags<T extends Options>(
  argv: string[],
  options: T,
  positionals: { min: number; max: number; what?: string },
): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(flagProblem(err, options), { showUsage: true });
  }
  const n = parsed.positionals.length;
  if (n < positionals.min || n > positionals.max) {
    const want =
      positionals.min === positionals.max
        ? `exactly ${positionals.min}`
        : positionals.max === Number.MAX_SAFE_INTEGER
          ? `at least ${positionals.min}`
          : `${positionals.min}-${positionals.max}`;
    const extra =
      n > positionals.max && positionals.max === 0 ? ` (unexpected '${String(parsed.positionals[0])}')` : '';
    throw new UsageError(`expected ${want} ${positionals.what ?? 'argument(s)'}, got ${n}${extra}`, {
      showUsage: true,
    });
  }
  return parsed;
}

/** -v/--verbose (repeatable) and -q/--quiet: the log level of commands that log (see logging.ts). */
export const LOG_FLAGS = {
  verbose: { type: 'boolean', short: 'v', multiple: true },
  quiet: { type: 'boolean', short: 'q', default: false },
} as const satisfies Options;

/** Help lines for LOG_FLAGS, aligned at `column`. */
export function logFlagsHelp(column: number): string {
  return [
    `  ${'-v, --verbose'.padEnd(column - 2)}more log lines (info; -vv debug, -vvv trace)`,
    `  ${'-q, --quiet'.padEnd(column - 2)}only errors in the log`,
  ].join('\n');
}
