// Policies: policy sets from YAML folders (built-ins and JS modules), mounted as native plugins,
// hot-reloaded atomically per call; the audit log, metrics and the services policies can inject.
import type { Context } from '../plugin/index.js';
import type { MountOptions, PolicyController, PolicyLoader } from './loader.js';
import type { ParsedSet } from './set-file.js';
export type { PolicyController, PolicyLoader } from './loader.js';

// The loader, the set file's schemas and the built-in policies load when a set is first mounted or
// parsed, not when the door is imported: `serve --policies none` imports the door for its services
// and never mounts a set (docs/decisions.md, "The policy code off the serve path").
const loader = () => import('./loader.js');

export async function mountPolicies(ctx: Context, dir: string, options?: MountOptions): Promise<PolicyController> {
  return (await loader()).mountPolicies(ctx, dir, options);
}

export function createPolicyLoader(
  options: MountOptions & { onMount?: (c: PolicyController) => void } = {},
): PolicyLoader {
  return async (ctx, dir, call) => (await loader()).createPolicyLoader(options)(ctx, dir, call);
}

/** Mounts with the services passed in (else the process-wide ones) and no watching unless asked. */
export const policyLoader: PolicyLoader = async (ctx, dir, opts) => (await loader()).policyLoader(ctx, dir, opts);

export async function parsePolicySet(dir: string): Promise<ParsedSet> {
  return (await import('./set-file.js')).parsePolicySet(dir);
}
export { PolicyConfigError } from './errors.js';
export { definePolicy, service, type PolicyModule, type PolicyContext } from './module.js';
export {
  createPolicyServices,
  defaultPolicyServices,
  setDefaultPolicyServices,
  type PolicyServices,
  type ServiceName,
  type InjectedServices,
} from './services.js';
export { PolicyEvents, type PolicyEvent } from './events.js';
export { verifyAuditFile, verifyAuditText } from './audit/verify.js';
export { GENESIS } from './audit/chain.js';
export { traceContentObserver } from './trace-content.js';
export { redactText } from './secrets.js';
export { formatExplanation } from './explain.js';
