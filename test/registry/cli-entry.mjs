// A tiny `toolgate` for the crash test: runs the built registry commands (dist/) in a child process
// until the lead wires them into the real CLI table.
import { installCommand } from '../../dist/cli/commands/registry-install.js';
import { listCommand } from '../../dist/cli/commands/registry-list.js';
import { uninstallCommand } from '../../dist/cli/commands/registry-uninstall.js';
import { verifyCommand } from '../../dist/cli/commands/registry-verify.js';

const commands = { install: installCommand, list: listCommand, uninstall: uninstallCommand, verify: verifyCommand };
const [name, ...argv] = process.argv.slice(2);
const command = commands[name ?? ''];
if (!command) {
  process.stderr.write(`usage: cli-entry.mjs install|list|uninstall|verify ...\n`);
  process.exit(2);
}
const io = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  stdin: process.stdin,
  isTTY: false,
  env: process.env,
  cwd: process.cwd(),
};
process.exitCode = await command.run(argv, io);
