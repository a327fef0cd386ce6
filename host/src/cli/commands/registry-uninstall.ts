import { uninstallTool } from '../../registry/index.js';
import { EXIT, type Command } from '../command.js';
import { homeOf, pauseHook, runCommand } from './registry-shared.js';
import { parseFlags } from '../usage.js';

const help = `Usage: toolgate uninstall TOOL

Removes an installed tool: its folder under $TOOLGATE_HOME/tools, its lockfile entry and the blobs
nothing else uses. Atomic: a kill leaves the tool either installed or gone.`;

export const uninstallCommand: Command = {
  path: ['uninstall'],
  summary: 'remove an installed tool',
  help,
  run: (argv, io) =>
    runCommand('uninstall', help, io, async () => {
      const { positionals } = parseFlags(argv, {}, { min: 1, max: 1 });
      const name = positionals[0] as string;
      const entry = await uninstallTool(homeOf(io), name, pauseHook(io, 'uninstall'));
      io.stdout(`uninstalled ${name}@${entry.version}\n`);
      return EXIT.ok;
    }),
};
