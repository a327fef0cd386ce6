import { resolve } from 'node:path';
import { packToFile } from '../../registry/index.js';
import { EXIT, type Command } from '../command.js';
import { runCommand } from './registry-shared.js';
import { parseFlags } from '../usage.js';

const help = `Usage: toolgate pack DIR [--out FILE] [--key PRIVATE_KEY]

Packs a tool folder (a manifest + the module its module.path names, + README.md) into a
deterministic .tgz: manifest.yaml, module.wasm, README.md and toolgate-package.json with the sha256
of each file. With --key the package is signed (ed25519) and the signature travels inside it.
Default output: ./<name>-<version>.tgz`;

export const packCommand: Command = {
  path: ['pack'],
  summary: 'pack a tool folder into a .tgz package',
  help,
  run: (argv, io) =>
    runCommand('pack', help, io, async () => {
      const { values, positionals } = parseFlags(argv, { out: { type: 'string' }, key: { type: 'string' } }, { min: 1, max: 1 });
      const dir = positionals[0] as string;
      const out = values.out === undefined ? undefined : resolve(io.cwd, values.out);
      const res = await packToFile(resolve(io.cwd, dir), out, values.key === undefined ? undefined : resolve(io.cwd, values.key));
      io.stdout(`${res.file}\n`);
      io.stderr(`packed ${res.pkg.name}@${res.pkg.version} (${res.digest})${res.pkg.signature ? `, signed by ${res.pkg.signature.signer}` : ', unsigned'}\n`);
      return EXIT.ok;
    }),
};
