// What the registry commands share: argument parsing, the store location, prompts, progress and
// turning registry errors into stable exit codes and messages.
import { messageOf } from '../../errors/index.js';
import {
  createProgress,
  isRegistryError,
  resolveHome,
  type PauseHook,
  type Progress,
  type RegistryErrorCode,
} from '../../registry/index.js';
import { EXIT, type CliIO, type ExitCode } from '../command.js';
import { UsageError } from '../usage.js';

/** Codes that mean "you asked wrongly", not "the package failed a check" (docs/cli.md, exit 2). */
const USAGE_CODES: ReadonlySet<RegistryErrorCode> = new Set<RegistryErrorCode>([
  'CONSENT_REQUIRED',
  'BAD_REFERENCE',
  'BAD_CONFIG',
  'BAD_KEY',
]);

export function homeOf(io: CliIO): string {
  return resolveHome(io.env);
}

/** Runs a command body; any failure becomes a message naming the command and a stable code. */
export async function runCommand(name: string, io: CliIO, body: () => Promise<ExitCode>): Promise<ExitCode> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof UsageError) {
      // One line that says what is wrong; the whole help would bury it.
      io.stderr(
        `toolgate ${name}: ${err.message}\n${err.showUsage ? `Run 'toolgate ${name} --help' for usage.\n` : ''}`,
      );
      return EXIT.usage;
    }
    if (isRegistryError(err)) {
      io.stderr(`toolgate ${name}: error ${err.code}: ${err.message}\n`);
      return USAGE_CODES.has(err.code) ? EXIT.usage : EXIT.failed;
    }
    io.stderr(`toolgate ${name}: ${messageOf(err)}\n`);
    return EXIT.failed;
  }
}

/** Progress goes to stderr: a bar on a terminal, lines otherwise, nothing with --quiet. */
export function progressFor(io: CliIO, quiet: boolean): Progress | undefined {
  const stderrIsTTY = io.stderrIsTTY ?? io.isTTY;
  return createProgress(quiet ? 'quiet' : stderrIsTTY ? 'bar' : 'lines', (t) => io.stderr(t));
}

/** Reads one line from the injected stdin (for y/N prompts). */
export function readLine(stdin: NodeJS.ReadableStream): Promise<string | undefined> {
  return new Promise((resolve) => {
    let buffer = '';
    const onData = (chunk: Buffer | string): void => {
      buffer += chunk.toString();
      const nl = buffer.indexOf('\n');
      if (nl >= 0) finish(buffer.slice(0, nl));
    };
    const onEnd = (): void => finish(buffer === '' ? undefined : buffer);
    const finish = (line: string | undefined): void => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.pause();
      resolve(line);
    };
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.resume();
  });
}

export function askFor(io: CliIO): ((question: string) => Promise<boolean>) | undefined {
  if (!io.isTTY) return undefined;
  return async (question) => {
    io.stderr(question);
    const answer = (await readLine(io.stdin))?.trim().toLowerCase();
    return answer === 'y' || answer === 'yes';
  };
}

/** TOOLGATE_TEST_PAUSE_AT=<stage> stops an install or uninstall at that stage (crash tests kill it there). */
export function pauseHook(io: CliIO, command: string): PauseHook | undefined {
  const at = io.env['TOOLGATE_TEST_PAUSE_AT'];
  if (at === undefined || at === '') return undefined;
  return async (stage) => {
    if (stage !== at) return;
    io.stderr(`toolgate ${command}: paused at ${stage}\n`);
    await new Promise<never>(() => {
      setInterval(() => undefined, 1 << 30);
    });
  };
}

/** `--json`: one line of JSON on stdout, the shape documented in docs/cli.md. */
export const JSON_FLAG = { json: { type: 'boolean', default: false } } as const;

export function printJson(io: CliIO, value: unknown): void {
  io.stdout(`${JSON.stringify(value)}\n`);
}
