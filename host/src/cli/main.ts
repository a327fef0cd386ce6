#!/usr/bin/env node
// The `toolgate` binary: wires the process to runCli. Kept tiny so startup stays fast; commands
// import what they need when they run.
import { dropUnusedStartupHold } from './startup-hold.js'; // before the commands' code loads: see there
import { startHelperForServe } from './startup-prep.js';
import { terminalWriter } from '../terminal/index.js';
import type { CliIO } from './command.js';

// likewise before the commands' code loads: serve's start-up helper runs while that code loads
startHelperForServe(new URL('./prep-worker.js', import.meta.url));

const interrupt = new AbortController();
let interrupts = 0;
process.on('SIGINT', () => {
  // First Ctrl-C cancels the running call cleanly; a second one leaves at once.
  interrupts += 1;
  if (interrupts > 1) process.exit(130);
  interrupt.abort(new Error('interrupted'));
});

// A reader that goes away (`toolgate list | head -1`) is not an error of the command: what is
// left to print is dropped and the command ends as it would have, without a stack trace. Once
// here, so every command gets it; anything but a closed pipe still surfaces.
const readerGone = new Set<NodeJS.WriteStream>();
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    readerGone.add(stream);
  });
}

// Text from manifests, packages and tools must not drive the terminal (escape sequences, CR,
// bidi overrides): stderr is for people and always escaped; stdout only when it is a terminal,
// so a pipe still gets a tool's bytes as they are.
const rawStdout = (text: string): void => void (readerGone.has(process.stdout) || process.stdout.write(text));
const rawStderr = (text: string): void => void (readerGone.has(process.stderr) || process.stderr.write(text));
const io: CliIO = {
  stdout: process.stdout.isTTY === true ? terminalWriter(rawStdout) : rawStdout,
  stderr: terminalWriter(rawStderr),
  stdin: process.stdin,
  isTTY: process.stdin.isTTY === true && process.stdout.isTTY === true,
  stderrIsTTY: process.stderr.isTTY === true,
  env: process.env,
  cwd: process.cwd(),
  signal: interrupt.signal,
  processStdio: true,
};

// imported here, not above: the command table's code loads after startup-hold.ts has run
const { runCli } = await import('./dispatch.js');
const code = await runCli(process.argv.slice(2), io);
dropUnusedStartupHold();
process.exitCode = code;
// A tool body that ignored its cancellation must not keep the process alive after we answered.
setTimeout(() => process.exit(code), 200).unref();
