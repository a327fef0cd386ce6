import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { addTrusted, listTrusted, removeTrusted, storeLayout, withStore, RegistryError } from '../../registry/index.js';
import { EXIT, type Command } from '../command.js';
import { homeOf, runCommand } from './registry-shared.js';
import { parseFlags } from '../usage.js';

const addHelp = `Usage: toolgate trust add NAME PUBKEY_FILE

Trusts a publisher's ed25519 public key (the .pub file from \`toolgate keygen\`) under NAME.
Packages signed by it install without --allow-unsigned.`;
const listHelp = `Usage: toolgate trust list

Lists trusted publisher keys: name and key id.`;
const removeHelp = `Usage: toolgate trust remove NAME

Stops trusting a publisher key. \`toolgate verify\` then reports tools it signed.`;

export const trustAddCommand: Command = {
  path: ['trust', 'add'],
  summary: 'trust a publisher public key',
  help: addHelp,
  run: (argv, io) =>
    runCommand('trust add', addHelp, io, async () => {
      const { positionals } = parseFlags(argv, {}, { min: 2, max: 2 });
      const file = resolve(io.cwd, positionals[1] as string);
      const pem = await readFile(file, 'utf8').catch((err: Error) => {
        throw new RegistryError('BAD_KEY', `${file}: cannot read public key (${err.message})`);
      });
      // Held like any store change, so recovery never takes this write's temporary file for a leftover.
      const key = await withStore(homeOf(io), (layout) => addTrusted(layout.trust, positionals[0] as string, pem, file));
      io.stdout(`${key.name} ${key.keyId}\n`);
      return EXIT.ok;
    }),
};

export const trustListCommand: Command = {
  path: ['trust', 'list'],
  summary: 'list trusted publisher keys',
  help: listHelp,
  run: (argv, io) =>
    runCommand('trust list', listHelp, io, async () => {
      parseFlags(argv, {}, { min: 0, max: 0 });
      for (const key of await listTrusted(storeLayout(homeOf(io)).trust)) io.stdout(`${key.name} ${key.keyId}\n`);
      return EXIT.ok;
    }),
};

export const trustRemoveCommand: Command = {
  path: ['trust', 'remove'],
  summary: 'stop trusting a publisher key',
  help: removeHelp,
  run: (argv, io) =>
    runCommand('trust remove', removeHelp, io, async () => {
      const { positionals } = parseFlags(argv, {}, { min: 1, max: 1 });
      const name = positionals[0] as string;
      if (!(await withStore(homeOf(io), (layout) => removeTrusted(layout.trust, name)))) {
        io.stderr(`toolgate trust remove: no trusted key named ${name}\n`);
        return EXIT.failed;
      }
      io.stdout(`removed ${name}\n`);
      return EXIT.ok;
    }),
};
