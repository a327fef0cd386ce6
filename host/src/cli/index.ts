// The `toolgate` command: dispatch, the command table and the runtime commands share.
export { runCli } from './dispatch.js';
export { commands, type CommandEntry } from './commands/index.js';
export { EXIT, type CliIO, type Command } from './command.js';
export { UsageError } from './usage.js';
export { createRuntime, type Runtime, type RuntimeOptions } from './runtime.js';
