// In stdio mode stdout belongs to JSON-RPC. Anything else in the process that writes there
// (a policy module's console.log, a dependency's banner, a worker's stdout) goes to stderr
// instead; only the writer handed out here reaches the real stdout.

export interface ReservedStdout {
  /** Writes to the real stdout. */
  write(text: string): void;
  /** Gives stdout back (for in-process tests; the CLI exits instead). */
  release(): void;
}

export function reserveStdout(): ReservedStdout {
  const stdout = process.stdout;
  const original = stdout.write;
  const toStderr = process.stderr.write.bind(process.stderr);
  // console.log/info/debug and stream pipes all end in stdout.write, so redirecting it covers them.
  stdout.write = toStderr as typeof stdout.write;
  return {
    write: (text) => void original.call(stdout, text),
    release() {
      stdout.write = original;
    },
  };
}
