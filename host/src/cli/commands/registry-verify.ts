import { verifyStore } from '../../registry/index.js';
import { EXIT, type Command } from '../command.js';
import { homeOf, JSON_FLAG, printJson, runCommand } from './registry-shared.js';
import { parseFlags } from '../usage.js';

const help = `Usage: toolgate verify [--json]

Re-checks the whole installed store: every blob against the digest the lockfile pins, every
installed manifest, and every signature against the trusted keys. Exit 1 on any problem, naming the
tool and the file. --json prints {"ok", "tools", "problems": [{tool, file, message}]} on one line.`;

export const verifyCommand: Command = {
  path: ['verify'],
  summary: 're-check every installed tool against the lockfile',
  help,
  run: (argv, io) =>
    runCommand('verify', io, async () => {
      const { values } = parseFlags(argv, JSON_FLAG, { min: 0, max: 0 });
      const report = await verifyStore(homeOf(io));
      if (values.json === true) {
        printJson(io, { ok: report.problems.length === 0, tools: report.tools, problems: report.problems });
        return report.problems.length > 0 ? EXIT.failed : EXIT.ok;
      }
      for (const p of report.problems) io.stderr(`${p.tool}: ${p.file}: ${p.message}\n`);
      if (report.problems.length > 0) {
        io.stdout(`FAILED: ${report.problems.length} problem(s) in ${report.tools} installed tool(s)\n`);
        return EXIT.failed;
      }
      io.stdout(`ok: ${report.tools} installed tool(s) verified\n`);
      return EXIT.ok;
    }),
};
