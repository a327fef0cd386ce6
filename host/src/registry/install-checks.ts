// Checks every install path shares (one tool, or a whole lockfile): the policy ceiling and the
// person's consent.
import { ceilingViolations, loadCeiling } from './ceiling.js';
import { RegistryError } from './errors.js';
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
  const violations = ceilingViolations(pkg.manifest.capabilities, ceiling, pkg.files['module.wasm']?.length ?? 0);
  if (violations.length > 0) {
    throw new RegistryError('CEILING_EXCEEDED', `${pkg.name}@${pkg.version} asks for more than the policy ceiling (${file}) allows:\n  - ${violations.join('\n  - ')}`);
  }
}

/** --yes, or a yes on the terminal; otherwise refused (CONSENT_REQUIRED without a terminal). */
export async function requireConsent(what: string, question: string, review: string, opts: ConsentOptions): Promise<void> {
  if (opts.yes === true) return;
  if (!opts.ask) throw new RegistryError('CONSENT_REQUIRED', `${what}: review ${review} above and pass --yes to install without a terminal`);
  if (!(await opts.ask(question))) throw new RegistryError('CONSENT_DECLINED', `${what}: not installed (declined)`);
}
