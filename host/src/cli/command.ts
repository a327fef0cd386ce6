// The shape every `toolgate` subcommand has. Commands get their I/O injected so tests can run them
// in-process and the real binary wires them to the process.

export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  stdin: NodeJS.ReadableStream;
  /** True only when a person can answer prompts. */
  isTTY: boolean;
  /** True when a person reads stderr (logs are then human lines, progress a bar). */
  stderrIsTTY?: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Aborted when the user interrupts (Ctrl-C); commands pass it on as the call's signal. */
  signal?: AbortSignal;
  /** True when stdout is the process's own (the CLI binary): `serve --stdio` then reserves it. */
  processStdio?: boolean;
}

/**
 * Exit codes of docs/cli.md, one contract for every command: 0 success; 1 the tool's call returned an
 * error (or, for a checking command, the check failed); 2 usage, configuration or load error.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export interface Command {
  /** Words that select it, e.g. ['call'] or ['policy', 'explain']. */
  path: string[];
  summary: string;
  /** Full `--help` text. */
  help: string;
  run(argv: string[], io: CliIO): Promise<ExitCode>;
}
