import { resolve } from 'node:path';
import { keygen } from '../../registry/index.js';
import { EXIT, type Command } from '../command.js';
import { runCommand } from './registry-shared.js';
import { parseFlags } from '../usage.js';

const help = `Usage: toolgate keygen [--out FILE] [--force]

Creates an ed25519 publisher key: FILE (the private key, mode 0600) and FILE.pub (the public key to
hand to users for \`toolgate trust add\`). Prints the key id. Default FILE: ./toolgate-signing.key`;

export const keygenCommand: Command = {
  path: ['keygen'],
  summary: 'create an ed25519 publisher signing key',
  help,
  run: (argv, io) =>
    runCommand('keygen', help, io, async () => {
      const { values } = parseFlags(argv, { out: { type: 'string' }, force: { type: 'boolean' } }, { min: 0, max: 0 });
      const res = await keygen(resolve(io.cwd, values.out ?? 'toolgate-signing.key'), values.force === true);
      io.stdout(`${res.keyId}\n`);
      io.stderr(`private key: ${res.privateFile} (keep it secret)\npublic key:  ${res.publicFile}\n`);
      return EXIT.ok;
    }),
};
