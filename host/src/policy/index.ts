// Policies: policy sets from YAML folders (built-ins and JS modules), mounted as native plugins,
// hot-reloaded atomically per call; the audit log, metrics and the services policies can inject.
export { mountPolicies, createPolicyLoader, policyLoader, type PolicyController, type PolicyLoader } from './loader.js';
export { parsePolicySet } from './set-file.js';
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
export { traceContentObserver } from './builtins/index.js';
export { redactText } from './secrets.js';
export { formatExplanation } from './explain.js';
