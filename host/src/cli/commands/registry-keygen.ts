import { resolve } from 'node:path';
import { keygen } from '../../registry/index.js';
import { EXIT, type Command } from '../command.js';
import { JSON_FLAG, printJson, runCommand } from './registry-shared.js';
import { parseFlags } from '../usage.js';

const help = `Usage: toolgate keygen [--out FILE] [--force] [--json]

Creates an ed25519 publisher key: FILE (the private key, mode 0600) and FILE.pub (the public key to
hand to users for \`toolgate trust add\`). Prints the key id. Default FILE: ./toolgate-signing.key.
--json prints {"keyId", "privateKey", "publicKey"} (the two file paths) on one line.`;

export const keygenCommand: Command = {
  path: ['keygen'],
  summary: 'create an ed25519 publisher signing key',
  help,
  run: (argv, io) =>
    runCommand('keygen', io, async () => {
      const { values } = parseFlags(
        argv,
        { out: { type: 'string' }, force: { type: 'boolean' }, ...JSON_FLAG },
        { min: 0, max: 0 },
      );
      const res = await keygen(resolve(io.cwd, values.out ?? 'toolgate-signing.key'), values.force === true);
      if (values.json === true) {
        printJson(io, { keyId: res.keyId, privateKey: res.privateFile, publicKey: res.publicFile });
        return EXIT.ok;
      }
      io.stdout(`${res.keyId}\n`);
      io.stderr(`private key: ${res.privateFile} (keep it secret)\npublic key:  ${res.publicFile}\n`);
      return EXIT.ok;
    }),
};
