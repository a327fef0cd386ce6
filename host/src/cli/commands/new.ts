// `toolgate new <tool> --lang as|c|rust|wat|ts|js [--dir D]`: scaffolds a buildable tool folder with its
// source, Makefile, manifest, test script and a copy of our PDK helpers for that language.
import { chmod, mkdir, readdir, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { EXIT, type CliIO, type Command, type ExitCode } from '../command.js';
import {
  ABIS,
  HYPER_LANGUAGES,
  LANGUAGES,
  languageLabel,
  scaffoldFiles,
  type Abi,
  type Language,
  type ScaffoldContext,
} from '../templates/index.js';
import { shellQuote } from '../templates/index.js';
import { packageRoot } from '../package-root.js';
import { parseFlags, UsageError } from '../usage.js';
import { messageOf } from '../../errors/index.js';

const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

const HELP = `Usage: toolgate new <tool> --lang as|c|rust|wat|ts|js [--abi toolgate|hyper-mcp] [--dir DIR] [--json]

Creates a folder with a working example tool named <tool>: its source, a Makefile, its manifest
(<tool>.yaml), a test script (test.sh) and our helpers for the language's Extism ABI (for ts and
js: toolgate's world, its runtime, a build script that makes a component of that world, and a
package.json + package-lock.json pinning the build packages as toolgate's own lockfile does).

Options:
  --lang LANG   as (AssemblyScript), c, rust, wat (WebAssembly text), ts (TypeScript) or
                js (JavaScript)
  --abi ABI     toolgate (default): one export, one tool; hyper-mcp: a plugin following
                hyper-mcp's v2 interface, with two tools, a resource and a prompt that the module
                describes (module.abi: hyper-mcp; --lang as, c or rust). <tool> names the plugin.
  --dir DIR     the folder to create (default ./<tool>); it must not exist or be empty
  --json        print {"tool", "lang", "dir", "files": [...]} on one line instead of text
  -h, --help    show this help

Then: cd DIR && ./test.sh   (builds the tool and calls it through the installed toolgate;
set TOOLGATE to another command line, e.g. "node /path/to/dist/cli/main.js", to use that)

The folder holds no paths of this machine: it builds and tests wherever it is copied.`;

interface NewFlags {
  tool: string;
  lang: Language;
  abi: Abi;
  dir: string;
  json: boolean;
}

function isLanguage(s: string): s is Language {
  return (LANGUAGES as readonly string[]).includes(s);
}

function parse(argv: string[], io: CliIO): NewFlags {
  const { values, positionals } = parseFlags(
    argv,
    {
      lang: { type: 'string' },
      abi: { type: 'string' },
      dir: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    { min: 1, max: 1, what: 'tool name' },
  );
  const tool = positionals[0] as string;
  if (!TOOL_NAME.test(tool)) {
    throw new UsageError(
      `tool name "${tool}" must match ${TOOL_NAME.source} (lowercase letters, digits and _, starting with a letter)`,
    );
  }
  const lang = values.lang;
  if (lang === undefined)
    throw new UsageError(`--lang is required: one of ${LANGUAGES.join(', ')}`, { showUsage: true });
  if (!isLanguage(lang)) throw new UsageError(`--lang "${lang}" is not one of ${LANGUAGES.join(', ')}`);
  const abi = abiOf(values.abi, tool, lang);
  return { tool, lang, abi, dir: resolve(io.cwd, values.dir ?? tool), json: values.json === true };
}

/** --abi, checked with what it needs of the name and the language. */
function abiOf(value: string | undefined, tool: string, lang: Language): Abi {
  const abi = value ?? 'toolgate';
  if (!(ABIS as readonly string[]).includes(abi))
    throw new UsageError(`--abi "${abi}" is not one of ${ABIS.join(', ')}`);
  if (abi !== 'hyper-mcp') return 'toolgate';
  if (!HYPER_LANGUAGES.includes(lang))
    throw new UsageError(`--abi hyper-mcp has scaffolds for --lang ${HYPER_LANGUAGES.join(', ')}, not ${lang}`);
  // a plugin name: its tools are served as <name>__<tool> (docs/authoring.md, "The hyper-mcp interface")
  if (tool.length > 48 || tool.includes('__') || tool.endsWith('_')) {
    throw new UsageError(`plugin name "${tool}" must be at most 48 characters, without "__" and not ending with "_"`);
  }
  return 'hyper-mcp';
}

/** Refuses to write into a folder that already has something in it: a scaffold never overwrites. */
async function ensureEmptyDir(dir: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (err) {
    const code = err instanceof Error && 'code' in err ? err.code : undefined;
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR') throw new UsageError(`--dir ${dir} is a file, not a folder`);
    throw new UsageError(`--dir ${dir}: ${messageOf(err)}`);
  }
  if (entries.length > 0) throw new UsageError(`--dir ${dir} already exists and is not empty; choose a new folder`);
}

function readHelper(path: string): Uint8Array {
  const file = join(packageRoot(), 'pdk-examples', path);
  try {
    return readFileSync(file);
  } catch (err) {
    throw new UsageError(
      `cannot read the PDK helper ${file} (is toolgate installed with its pdk-examples?): ${messageOf(err)}`,
    );
  }
}

/** toolgate's own pins for build-time packages (its devDependencies), so scaffolds build like the examples. */
function buildPins(): Record<string, string> {
  try {
    const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as Record<string, unknown>;
    const pins: Record<string, string> = {};
    for (const field of ['dependencies', 'devDependencies']) {
      const deps = pkg[field];
      if (typeof deps !== 'object' || deps === null) continue;
      for (const [name, version] of Object.entries(deps)) if (typeof version === 'string') pins[name] = version;
    }
    return pins;
  } catch {
    return {};
  }
}

async function run(argv: string[], io: CliIO): Promise<ExitCode> {
  const flags = parse(argv, io);
  await ensureEmptyDir(flags.dir);
  const ctx: ScaffoldContext = {
    tool: flags.tool,
    buildPins: buildPins(),
    readHelper,
  };
  // Build every file in memory first, so a missing helper leaves nothing half-written.
  const files = scaffoldFiles(flags.lang, ctx, flags.abi);
  for (const f of files) {
    const target = join(flags.dir, ...f.path.split('/'));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, f.content, { flag: 'wx' });
    if (f.executable === true) await chmod(target, 0o755);
  }
  if (flags.json) {
    io.stdout(
      `${JSON.stringify({ tool: flags.tool, lang: flags.lang, ...(flags.abi === 'hyper-mcp' ? { abi: flags.abi } : {}), dir: flags.dir, files: files.map((f) => f.path) })}\n`,
    );
    return EXIT.ok;
  }
  io.stdout(
    `Created ${flags.tool} (${languageLabel(flags.lang)}${flags.abi === 'hyper-mcp' ? ', hyper-mcp plugin' : ''}) in ${flags.dir}:\n` +
      files.map((f) => `  ${f.path}\n`).join('') +
      `Next: cd ${/\s/.test(flags.dir) ? shellQuote(flags.dir) : flags.dir} && ./test.sh\n`,
  );
  return EXIT.ok;
}

export const newCommand: Command = {
  path: ['new'],
  summary: 'scaffold a new WebAssembly tool (AssemblyScript, C, Rust, WAT, TypeScript or JavaScript)',
  help: HELP,
  run,
};
