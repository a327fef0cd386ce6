// The CLI's logger: human lines when a person reads stderr (a terminal), pino's JSON lines
// otherwise, at a level from -v/-q, then TOOLGATE_LOG_LEVEL, then the command's default.
import { pino, type Logger } from 'pino';
import { z } from 'zod';
import type { CliIO } from './command.js';
import { UsageError } from './usage.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const LOG_FORMATS = ['pretty', 'json'] as const;
// built when the variable is set, not at every start (docs/decisions.md, "Less code and fewer
// schemas on serve's start")
let levelSchema: z.ZodEnum<{ [L in LogLevel]: L }> | undefined;
let formatSchema: z.ZodEnum<{ [F in (typeof LOG_FORMATS)[number]]: F }> | undefined;

/** What -v (counted) and -q asked for. */
export interface LogChoice {
  verbose: number;
  quiet: boolean;
}

export function logChoice(values: { verbose?: boolean[] | undefined; quiet?: boolean | undefined }): LogChoice {
  return { verbose: values.verbose?.length ?? 0, quiet: values.quiet === true };
}

/** Whether a person reads this process's stderr (the binary sets it; tests may inject it). */
export function stderrIsTTY(io: CliIO): boolean {
  return io.stderrIsTTY ?? false;
}

/** -v/-q win over TOOLGATE_LOG_LEVEL, which wins over the command's default. */
export function logLevel(io: CliIO, choice: LogChoice | undefined, fallback: LogLevel): LogLevel {
  if (choice !== undefined && choice.verbose > 0 && choice.quiet)
    throw new UsageError('give either -v or -q, not both', { showUsage: true });
  if (choice !== undefined && choice.verbose > 0)
    return (['info', 'debug', 'trace'] as const)[Math.min(choice.verbose, 3) - 1] ?? 'trace';
  if (choice?.quiet === true) return 'error';
  const env = io.env.TOOLGATE_LOG_LEVEL;
  if (env === undefined || env === '') return fallback;
  const level = (levelSchema ??= z.enum(LOG_LEVELS)).safeParse(env);
  if (!level.success)
    throw new UsageError(`TOOLGATE_LOG_LEVEL: must be one of ${LOG_LEVELS.join(', ')} (got ${JSON.stringify(env)})`);
  return level.data;
}

/** pretty on a terminal, json elsewhere; TOOLGATE_LOG_FORMAT=pretty|json overrides. */
function logFormat(io: CliIO): 'pretty' | 'json' {
  const env = io.env.TOOLGATE_LOG_FORMAT;
  if (env === undefined || env === '') return stderrIsTTY(io) ? 'pretty' : 'json';
  const format = (formatSchema ??= z.enum(LOG_FORMATS)).safeParse(env);
  if (!format.success) throw new UsageError(`TOOLGATE_LOG_FORMAT: must be pretty or json (got ${JSON.stringify(env)})`);
  return format.data;
}

/**
 * A logger writing to io.stderr. The pretty form has no colours: stderr escapes control
 * characters (tool text must not drive the terminal), so colour codes would show as \u001b[..
 */
export async function createLogger(io: CliIO, level: LogLevel): Promise<Logger> {
  const write = (line: string): void => io.stderr(line);
  if (logFormat(io) === 'json') return pino({ level, base: null }, { write });
  const { prettyFactory } = (await import('pino-pretty')).default;
  const pretty = prettyFactory({
    colorize: false,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname',
  });
  return pino({ level, base: null }, { write: (line: string) => write(pretty(line)) });
}
