import { resolve } from 'node:path';
import { installLocked, installTool, storeLayout } from '../../registry/index.js';
import { EXIT, type Command } from '../command.js';
import { askFor, homeOf, JSON_FLAG, pauseHook, printJson, progressFor, runCommand } from './registry-shared.js';
import { parseFlags, UsageError } from '../usage.js';

const help = `Usage: toolgate install REF [--yes] [--allow-unsigned] [--allow-downgrade] [--insecure]
                        [--ceiling FILE] [--timeout MS] [--quiet] [--json]
       toolgate install PLAIN_WASM_REF --manifest FILE [same options]
       toolgate install HYPER_MCP_PLUGIN_REF [--manifest FILE | --draft-manifest] [same options]
       toolgate install --locked [LOCKFILE] [same options]

REF is one of
  ./dir                                  a tool folder or an unpacked package
  ./pkg.tgz                              a package from \`toolgate pack\`
  https://host/index.json#tool@range     a static HTTP index (range: 1.2.3, ^1.2.0, ~1.2.0, >=1.0.0, *)
  oci://host:port/repo/name:tag          an OCI registry
  ./module.wasm, https://host/x.wasm,    a plain WebAssembly module or CNCF wasm OCI artifact (no
  oci://... --manifest FILE              toolgate manifest in it): FILE is its manifest; pinned by digest
  oci://host/repo:tag                    a hyper-mcp plugin (ORAS artifact with an application/wasm
                                         layer, or a FROM scratch image holding /plugin.wasm): FILE
                                         (module.abi: hyper-mcp) is its manifest, or install drafts
                                         one from the module's exports that grants nothing; the draft
                                         is shown and asked about on a terminal, and without one
                                         (or with --yes) it needs --draft-manifest
The package's digests are verified, its signature checked against \`toolgate trust\` keys
(unsigned or untrusted packages are refused unless --allow-unsigned), a lower version than the
lockfile's is refused unless --allow-downgrade, and a policy ceiling (--ceiling FILE or
$TOOLGATE_HOME/ceiling.yaml) refuses a package that asks for more. The capabilities are shown and
must be confirmed on a terminal, or with --yes after review (an upgrade asks again only when they grow).
A hyper-mcp plugin's review also lists every tool (as <plugin>__<tool>), resource, template and
prompt its module describes (described in the sandbox, never called).

--timeout MS bounds all the downloads of the install together (default 600000, ten minutes): a
registry that sends too slowly is cut off with error TIMEOUT. A prompt's wait is not counted.
--insecure allows plain http to any host, and a step from https down to http (a redirect, or an
https index listing an http package URL), refused without it even to 127.0.0.0/8.

--locked installs exactly what LOCKFILE (default $TOOLGATE_HOME/toolgate.lock; e.g. another
machine's) pins: each tool from its pinned digest reference, whatever tags or ranges say now.
If any byte differs from the lockfile (files, archive or OCI manifest digest, installed manifest,
signer), nothing is installed.

--json prints {"tools": [{name, version, outcome, previousVersion?, signer?}]} on one line.`;

/** --timeout MS: a positive whole number of milliseconds. */
function timeoutFlag(text: string): number {
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(n) || n <= 0)
    throw new UsageError(`--timeout: must be a positive integer (milliseconds), got "${text}"`);
  return n;
}

export const installCommand: Command = {
  path: ['install'],
  summary: 'install a tool from a folder, .tgz, HTTP index or OCI registry',
  help,
  run: (argv, io) =>
    runCommand('install', io, async () => {
      const { values, positionals } = parseFlags(
        argv,
        {
          yes: { type: 'boolean', short: 'y' },
          'allow-unsigned': { type: 'boolean' },
          'allow-downgrade': { type: 'boolean' },
          insecure: { type: 'boolean' },
          ceiling: { type: 'string' },
          timeout: { type: 'string' },
          quiet: { type: 'boolean', short: 'q' },
          locked: { type: 'boolean' },
          manifest: { type: 'string' },
          'draft-manifest': { type: 'boolean' },
          ...JSON_FLAG,
        },
        { min: 0, max: Number.MAX_SAFE_INTEGER },
      );
      const progress = progressFor(io, values.quiet === true);
      const ask = askFor(io);
      const pause = pauseHook(io, 'install');
      const common = {
        home: homeOf(io),
        cwd: io.cwd,
        insecure: values.insecure === true,
        allowUnsigned: values['allow-unsigned'] === true,
        allowDowngrade: values['allow-downgrade'] === true,
        yes: values.yes === true,
        ...(values.timeout !== undefined ? { timeoutMs: timeoutFlag(values.timeout) } : {}),
        ...(values.ceiling !== undefined ? { ceilingFile: resolve(io.cwd, values.ceiling) } : {}),
        ...(progress ? { progress } : {}),
        ...(ask ? { ask } : {}),
        ...(pause ? { pause } : {}),
        say: (t: string) => io.stderr(t),
      };
      const allowed = values.locked === true ? '0-1' : 'exactly 1';
      if (positionals.length > 1 || (values.locked !== true && positionals.length !== 1)) {
        throw new UsageError(`expected ${allowed} argument(s), got ${positionals.length}`);
      }
      if (values.locked === true) {
        if (values.manifest !== undefined || values['draft-manifest'] === true) {
          throw new UsageError(
            `${values.manifest !== undefined ? '--manifest' : '--draft-manifest'} cannot be combined with --locked (the lockfile names each manifest)`,
          );
        }
        const file = positionals[0] !== undefined ? resolve(io.cwd, positionals[0]) : storeLayout(common.home).lock;
        const tools = await installLocked({ ...common, lockfile: file });
        if (values.json === true) printJson(io, { tools });
        else for (const t of tools) io.stdout(`${t.outcome} ${t.name}@${t.version}\n`);
        return EXIT.ok;
      }
      if (values.manifest !== undefined && values['draft-manifest'] === true)
        throw new UsageError('--manifest and --draft-manifest cannot be combined (one manifest: yours or the draft)');
      const manifestFile = values.manifest !== undefined ? { manifestFile: resolve(io.cwd, values.manifest) } : {};
      const draft = values['draft-manifest'] === true ? { draftManifest: true } : {};
      const res = await installTool({ ...common, ...manifestFile, ...draft, ref: positionals[0] as string });
      if (values.json === true) {
        printJson(io, { tools: [res] });
        return EXIT.ok;
      }
      const from =
        res.previousVersion !== undefined && res.outcome !== 'unchanged' ? ` (was ${res.previousVersion})` : '';
      io.stdout(`${res.outcome} ${res.name}@${res.version}${from}${res.signer ? ` signed by ${res.signer}` : ''}\n`);
      return EXIT.ok;
    }),
};
