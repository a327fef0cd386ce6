import { resolve } from 'node:path';
import { loadPackage, publishPackage, signWithKeyFile } from '../../registry/index.js';
import { EXIT, type Command } from '../command.js';
import { JSON_FLAG, printJson, runCommand } from './registry-shared.js';
import { UsageError } from '../usage.js';
import { parseFlags } from '../usage.js';

const help = `Usage: toolgate publish PACKAGE --to TARGET [--key PRIVATE_KEY] [--insecure] [--force] [--json]

PACKAGE is a .tgz from \`toolgate pack\` or a tool folder. TARGET is
  DIR                          a static index folder: DIR/index.json + DIR/packages/*.tgz
                               (serve DIR with any web server; install with URL/index.json#tool@range)
  oci://host[:port]/repo:tag   an OCI registry (CNCF wasm artifact layout)
--key signs the package (ed25519 over its name, version and file digests); the signature goes in
the index entry or the OCI manifest annotations. --force replaces a version already in a DIR index.
Plain http is used only for 127.0.0.0/8 unless --insecure. --json prints {"location", "name",
"version", "target", "signer"} (signer null when unsigned) on one line.`;

export const publishCommand: Command = {
  path: ['publish'],
  summary: 'publish a package to a directory index or an OCI registry',
  help,
  run: (argv, io) =>
    runCommand('publish', io, async () => {
      const { values, positionals } = parseFlags(
        argv,
        {
          to: { type: 'string' },
          key: { type: 'string' },
          insecure: { type: 'boolean' },
          force: { type: 'boolean' },
          ...JSON_FLAG,
        },
        { min: 1, max: 1, what: 'package' },
      );
      if (values.to === undefined) throw new UsageError('--to is required', { showUsage: true });
      let pkg = await loadPackage(resolve(io.cwd, positionals[0] as string));
      if (values.key !== undefined) pkg = await signWithKeyFile(pkg, resolve(io.cwd, values.key));
      const target = values.to.includes('://') ? values.to : resolve(io.cwd, values.to);
      const res = await publishPackage(pkg, target, {
        insecure: values.insecure === true,
        force: values.force === true,
      });
      if (values.json === true) {
        printJson(io, {
          location: res.location,
          name: res.name,
          version: res.version,
          target: res.target,
          signer: res.signer ?? null,
        });
        return EXIT.ok;
      }
      io.stdout(`${res.location}\n`);
      io.stderr(
        `published ${res.name}@${res.version} to ${res.target}${res.signer ? ` signed by ${res.signer}` : ' UNSIGNED'}\n`,
      );
      return EXIT.ok;
    }),
};
