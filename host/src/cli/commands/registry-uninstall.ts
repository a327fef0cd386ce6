import { uninstallTool } from '../../registry/index.js';
import { EXIT, type Command } from '../command.js';
import { homeOf, JSON_FLAG, pauseHook, printJson, runCommand } from './registry-shared.js';
import { parseFlags } from '../usage.js';

const help = `Usage: toolgate uninstall TOOL [--json]

Removes an installed tool: its folder under $TOOLGATE_HOME/tools, its lockfile entry and the blobs
nothing else uses. Atomic: a kill leaves the tool either installed or gone.
--json prints {"name", "version"} of what was removed on one line.`;

export const uninstallCommand: Command = {
  path: ['uninstall'],
  summary: 'remove an installed tool',
  help,
  run: (argv, io) =>
    runCommand('uninstall', io, async () => {
      const { values, positionals } = parseFlags(argv, JSON_FLAG, { min: 1, max: 1, what: 'tool name' });
      const name = positionals[0] as string;
      const entry = await uninstallTool(homeOf(io), name, pauseHook(io, 'uninstall'));
      if (values.json === true) printJson(io, { name, version: entry.version });
      else io.stdout(`uninstalled ${name}@${entry.version}\n`);
      return EXIT.ok;
    }),
};
