import { verifyStore } from '../../registry/index.js';
import { EXIT, type Command } from '../command.js';
import { homeOf, runCommand } from './registry-shared.js';
import { parseFlags } from '../usage.js';

const help = `Usage: toolgate verify

Re-checks the whole installed store: every blob against the digest the lockfile pins, every
installed manifest, and every signature against the trusted keys. Exit 1 on any problem, naming the
tool and the file.`;

export const verifyCommand: Command = {
  path: ['verify'],
  summary: 're-check every installed tool against the lockfile',
  help,
  run: (argv, io) =>
    runCommand('verify', help, io, async () => {
      parseFlags(argv, {}, { min: 0, max: 0 });
      const report = await verifyStore(homeOf(io));
      for (const p of report.problems) io.stderr(`${p.tool}: ${p.file}: ${p.message}\n`);
      if (report.problems.length > 0) {
        io.stdout(`FAILED: ${report.problems.length} problem(s) in ${report.tools} installed tool(s)\n`);
        return EXIT.failed;
      }
      io.stdout(`ok: ${report.tools} installed tool(s) verified\n`);
      return EXIT.ok;
    }),
};
