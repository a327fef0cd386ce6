// The command table. Adding a command = one entry here: the Command itself, or, for a command
// whose module imports heavy things (zod schemas, the sandbox, the MCP SDK), a lazy entry so
// `toolgate --help` and `toolgate call` do not pay for modules they never use.
import type { Command } from '../command.js';
import { callCommand } from './call.js';
import { helpCommand, versionCommand } from './version.js';

/** A command loaded only when it is the one being run (its summary is repeated here for --help). */
export interface LazyCommand {
  path: string[];
  summary: string;
  load(): Promise<Command>;
}
export type CommandEntry = Command | LazyCommand;

function lazy(path: string[], summary: string, load: () => Promise<Command>): LazyCommand {
  return { path, summary, load };
}

export const commands: readonly CommandEntry[] = [
  callCommand,
  lazy(
    ['inspect'],
    "show a tool's schema, annotations and what it may touch",
    async () => (await import('./inspect.js')).inspectCommand,
  ),
  // Loaded for its help too (`serve --help`, `help serve`): the nursery hold is taken when it runs
  // (serve.ts), so a load that never serves holds nothing (startup-hold.ts).
  lazy(
    ['serve'],
    'serve the tools over MCP (stdio or HTTP) and a plain HTTP API',
    async () => (await import('./serve.js')).serveCommand,
  ),
  lazy(
    ['schema'],
    'print the tool list as MCP, OpenAI or Anthropic tool definitions',
    async () => (await import('./schema.js')).schemaCommand,
  ),
  lazy(
    ['new'],
    'scaffold a new WebAssembly tool (AssemblyScript, C, Rust, WAT, TypeScript or JavaScript)',
    async () => (await import('./new.js')).newCommand,
  ),
  lazy(
    ['list'],
    'list installed tools and their capabilities',
    async () => (await import('./registry-list.js')).listCommand,
  ),
  lazy(
    ['install'],
    'install a tool from a folder, .tgz, HTTP index or OCI registry',
    async () => (await import('./registry-install.js')).installCommand,
  ),
  lazy(
    ['uninstall'],
    'remove an installed tool',
    async () => (await import('./registry-uninstall.js')).uninstallCommand,
  ),
  lazy(
    ['verify'],
    're-check every installed tool against the lockfile',
    async () => (await import('./registry-verify.js')).verifyCommand,
  ),
  lazy(
    ['pack'],
    'pack a tool folder into a .tgz package',
    async () => (await import('./registry-pack.js')).packCommand,
  ),
  lazy(
    ['publish'],
    'publish a package to a directory index or an OCI registry',
    async () => (await import('./registry-publish.js')).publishCommand,
  ),
  lazy(
    ['keygen'],
    'create an ed25519 publisher signing key',
    async () => (await import('./registry-keygen.js')).keygenCommand,
  ),
  lazy(
    ['trust', 'add'],
    'trust a publisher public key',
    async () => (await import('./registry-trust.js')).trustAddCommand,
  ),
  lazy(
    ['trust', 'list'],
    'list trusted publisher keys',
    async () => (await import('./registry-trust.js')).trustListCommand,
  ),
  lazy(
    ['trust', 'remove'],
    'stop trusting a publisher key',
    async () => (await import('./registry-trust.js')).trustRemoveCommand,
  ),
  lazy(
    ['policy', 'explain'],
    'show which policy entry would allow, deny or ask for a call, and why',
    async () => (await import('./policy-explain.js')).policyExplainCommand,
  ),
  lazy(
    ['policy', 'show'],
    'show which policy set is in force, where it came from, and its entries in order',
    async () => (await import('./policy-show.js')).policyShowCommand,
  ),
  lazy(
    ['audit', 'verify'],
    "check an audit log's hash chain (edits, deletions, reordering)",
    async () => (await import('./audit-verify.js')).auditVerifyCommand,
  ),
  versionCommand,
  helpCommand,
];
