import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { addTrusted, listTrusted, removeTrusted, storeLayout, withStore, RegistryError } from '../../registry/index.js';
import { EXIT, type Command } from '../command.js';
import { homeOf, JSON_FLAG, printJson, runCommand } from './registry-shared.js';
import { parseFlags } from '../usage.js';

const addHelp = `Usage: toolgate trust add NAME PUBKEY_FILE [--json]

Trusts a publisher's ed25519 public key (the .pub file from \`toolgate keygen\`) under NAME.
Packages signed by it install without --allow-unsigned. --json prints {"name", "keyId"}.`;
const listHelp = `Usage: toolgate trust list [--json]

Lists trusted publisher keys: name and key id. --json prints [{"name", "keyId"}] on one line.`;
const removeHelp = `Usage: toolgate trust remove NAME [--json]

Stops trusting a publisher key. \`toolgate verify\` then reports tools it signed.
Exit 1 when no key has that name. --json prints {"removed": NAME}.`;

export const trustAddCommand: Command = {
  path: ['trust', 'add'],
  summary: 'trust a publisher public key',
  help: addHelp,
  run: (argv, io) =>
    runCommand('trust add', io, async () => {
      const { values, positionals } = parseFlags(argv, JSON_FLAG, { min: 2, max: 2 });
      const file = resolve(io.cwd, positionals[1] as string);
      const pem = await readFile(file, 'utf8').catch((err: Error) => {
        throw new RegistryError('BAD_KEY', `${file}: cannot read public key (${err.message})`);
      });
      // Held like any store change, so recovery never takes this write's temporary file for a leftover.
      const key = await withStore(homeOf(io), (layout) =>
        addTrusted(layout.trust, positionals[0] as string, pem, file),
      );
      if (values.json === true) printJson(io, { name: key.name, keyId: key.keyId });
      else io.stdout(`${key.name} ${key.keyId}\n`);
      return EXIT.ok;
    }),
};

export const trustListCommand: Command = {
  path: ['trust', 'list'],
  summary: 'list trusted publisher keys',
  help: listHelp,
  run: (argv, io) =>
    runCommand('trust list', io, async () => {
      const { values } = parseFlags(argv, JSON_FLAG, { min: 0, max: 0 });
      const keys = await listTrusted(storeLayout(homeOf(io)).trust);
      if (values.json === true)
        printJson(
          io,
          keys.map((k) => ({ name: k.name, keyId: k.keyId })),
        );
      else for (const key of keys) io.stdout(`${key.name} ${key.keyId}\n`);
      return EXIT.ok;
    }),
};

export const trustRemoveCommand: Command = {
  path: ['trust', 'remove'],
  summary: 'stop trusting a publisher key',
  help: removeHelp,
  run: (argv, io) =>
    runCommand('trust remove', io, async () => {
      const { values, positionals } = parseFlags(argv, JSON_FLAG, { min: 1, max: 1 });
      const name = positionals[0] as string;
      if (!(await withStore(homeOf(io), (layout) => removeTrusted(layout.trust, name)))) {
        io.stderr(`toolgate trust remove: no trusted key named ${name}\n`);
        return EXIT.failed;
      }
      if (values.json === true) printJson(io, { removed: name });
      else io.stdout(`removed ${name}\n`);
      return EXIT.ok;
    }),
};
