// Runs `toolgate` like dist/cli/main.js, with the serve and schema commands added when the
// command table does not list them yet (the lead wires them into host/src/cli/commands/index.ts).
import { runCli } from '../../dist/cli/dispatch.js';
import { commands } from '../../dist/cli/commands/index.js';
import { serveCommand } from '../../dist/cli/commands/serve.js';
import { schemaCommand } from '../../dist/cli/commands/schema.js';

const table = [...commands];
if (!table.some((c) => c.path[0] === 'serve')) table.push(serveCommand);
if (!table.some((c) => c.path[0] === 'schema')) table.push(schemaCommand);

const interrupt = new AbortController();
let interrupts = 0;
process.on('SIGINT', () => {
  interrupts += 1;
  if (interrupts > 1) process.exit(130);
  interrupt.abort(new Error('interrupted'));
});
const io = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  stdin: process.stdin,
  isTTY: false,
  env: process.env,
  cwd: process.cwd(),
  signal: interrupt.signal,
};
const code = await runCli(process.argv.slice(2), io, table);
process.exitCode = code;
setTimeout(() => process.exit(code), 200).unref();
