// The `toolgate` command: dispatch, the command table and the runtime commands share.
export { runCli } from './dispatch.js';
export { toolgateVersion } from './package-root.js';
export { commands, type CommandEntry, type LazyCommand } from './commands/index.js';
export { EXIT, type CliIO, type Command, type ExitCode } from './command.js';
export { UsageError } from './usage.js';
export { createRuntime, loaders, type Runtime, type RuntimeOptions, type ManifestLoader, type PolicyLoader } from './runtime.js';
