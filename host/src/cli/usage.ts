// Help text for the whole command, a usage error type every command can throw, and the one way
// commands parse their flags.
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** What help needs of a command (a loaded one or a lazy table entry). */
type Listed = { path: string[]; summary: string };

/** A mistake in how the command was invoked or configured: exit 2, message on stderr. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
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
    "Run 'toolgate <command> --help' for a command's options.",
    '',
    'Exit status: 0 success, 1 the tool call returned an error, 2 usage or configuration error.',
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

/**
 * Strict flags plus a positional count: an unknown flag, a missing flag value or the wrong number
 * of positionals is a UsageError (exit 2) whose message says what is wrong.
 */
export function parseFlags<T extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: T,
  positionals: { min: number; max: number; what?: string },
) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const n = parsed.positionals.length;
  if (n < positionals.min || n > positionals.max) {
    const want = positionals.min === positionals.max ? `exactly ${positionals.min}` : `${positionals.min}-${positionals.max}`;
    throw new UsageError(`expected ${want} ${positionals.what ?? 'argument(s)'}, got ${n}`);
  }
  return parsed;
}
