// Checks every install path shares (one tool, or a whole lockfile): the policy ceiling and the
// person's consent.
import { ceilingViolations, loadCeiling } from './ceiling.js';
import { RegistryError } from './errors.js';
import { describeFlag, type TextFlag } from './screen.js';
import type { ToolPackage } from './package.js';
import type { StoreLayout } from './store-layout.js';

export interface ConsentOptions {
  /** Consent given up front (after the user reviewed what was shown). */
  yes?: boolean;
  /** Asks a yes/no question; undefined when nobody can answer (no TTY). */
  ask?: (question: string) => Promise<boolean>;
  /** An explicit ceiling file; otherwise $TOOLGATE_HOME/ceiling.yaml if it exists. */
  ceilingFile?: string;
}

/** Refuses a package that asks for more than the ceiling allows, whatever anyone answers. */
export async function enforceCeiling(pkg: ToolPackage, opts: ConsentOptions, layout: StoreLayout): Promise<void> {
  const file = opts.ceilingFile ?? layout.ceiling;
  const ceiling = await loadCeiling(file, opts.ceilingFile !== undefined);
  if (!ceiling) return;
  // max_module_bytes holds for every module the package carries, linked ones included
  const largest = Math.max(
    0,
    ...Object.entries(pkg.files)
      .filter(([n]) => n.endsWith('.wasm'))
      .map(([, b]) => b?.length ?? 0),
  );
  const violations = ceilingViolations(pkg.manifest.capabilities, ceiling, largest);
  if (ceiling.allow_flagged_text === false) {
    for (const flag of packageFlags(pkg))
      violations.push(`flagged text the model reads is not allowed (allow_flagged_text: false): ${describeFlag(flag)}`);
  }
  if (violations.length > 0) {
    throw new RegistryError(
      'CEILING_EXCEEDED',
      `${pkg.name}@${pkg.version} asks for more than the policy ceiling (${file}) allows:\n  - ${violations.join('\n  - ')}`,
    );
  }
}

/** The manifest's flags and, for a hyper-mcp package, those of what its module described. */
function packageFlags(pkg: ToolPackage): TextFlag[] {
  return [...pkg.manifest.flags, ...(pkg.described?.flags ?? [])];
}

/** The flags of a package, as lines for the consent text (empty when nothing was flagged). */
export function flagLines(pkg: ToolPackage): string {
  const flags = packageFlags(pkg);
  if (flags.length === 0) return '';
  return `!!! text the model will read was flagged (it may be trying to steer the model):\n${flags.map((f) => `  ! ${describeFlag(f)}\n`).join('')}`;
}

/** --yes, or a yes on the terminal; otherwise refused (CONSENT_REQUIRED without a terminal). */
export async function requireConsent(
  what: string,
  question: string,
  review: string,
  opts: ConsentOptions,
): Promise<void> {
  if (opts.yes === true) return;
  if (!opts.ask)
    throw new RegistryError(
      'CONSENT_REQUIRED',
      `${what}: review ${review} above and pass --yes to install without a terminal`,
    );
  if (!(await opts.ask(question))) throw new RegistryError('CONSENT_DECLINED', `${what}: not installed (declined)`);
}
