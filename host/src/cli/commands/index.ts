// The command table. Adding a command = one entry here: either the Command itself, or (for a
// command that imports heavy modules at load) a lazy entry so `toolgate --help` stays fast.
import type { Command } from '../command.js';
import { callCommand } from './call.js';

/** A command loaded only when it is the one being run. */
export interface LazyCommand {
  path: string[];
  summary: string;
  load(): Promise<Command>;
}
export type CommandEntry = Command | LazyCommand;

export const commands: readonly CommandEntry[] = [
  callCommand,
  {
    path: ['inspect'],
    summary: "show a tool's schema, annotations and what it may touch",
    load: async () => (await import('./inspect.js')).inspectCommand,
  },
];
