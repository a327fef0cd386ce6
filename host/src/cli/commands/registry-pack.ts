import { resolve } from 'node:path';
import { packToFile } from '../../registry/index.js';
import { EXIT, type Command } from '../command.js';
import { JSON_FLAG, printJson, runCommand } from './registry-shared.js';
import { parseFlags } from '../usage.js';

const help = `Usage: toolgate pack DIR [--out FILE] [--key PRIVATE_KEY] [--json]

Packs a tool folder (a manifest + the modules its module.path and module.link name, + README.md)
into a deterministic .tgz: manifest.yaml, module.wasm, link-<n>.wasm (one per linked module),
README.md and toolgate-package.json with the sha256 of each file. Every module must be named by a
relative path inside the folder. With --key the package is signed (ed25519) and the signature travels inside it.
Default output: ./<name>-<version>.tgz. --json prints {"file", "name", "version", "digest", "signer"}
(signer null when unsigned) on one line.`;

export const packCommand: Command = {
  path: ['pack'],
  summary: 'pack a tool folder into a .tgz package',
  help,
  run: (argv, io) =>
    runCommand('pack', io, async () => {
      const { values, positionals } = parseFlags(
        argv,
        { out: { type: 'string' }, key: { type: 'string' }, ...JSON_FLAG },
        { min: 1, max: 1, what: 'tool folder' },
      );
      const dir = positionals[0] as string;
      const out = values.out === undefined ? undefined : resolve(io.cwd, values.out);
      const res = await packToFile(
        resolve(io.cwd, dir),
        out,
        values.key === undefined ? undefined : resolve(io.cwd, values.key),
      );
      if (values.json === true) {
        printJson(io, {
          file: res.file,
          name: res.pkg.name,
          version: res.pkg.version,
          digest: res.digest,
          signer: res.pkg.signature?.signer ?? null,
        });
        return EXIT.ok;
      }
      io.stdout(`${res.file}\n`);
      io.stderr(
        `packed ${res.pkg.name}@${res.pkg.version} (${res.digest})${res.pkg.signature ? `, signed by ${res.pkg.signature.signer}` : ', unsigned'}\n`,
      );
      return EXIT.ok;
    }),
};
