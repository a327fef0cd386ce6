// Policies: policy sets from YAML folders (built-ins and JS modules), mounted as native plugins,
// hot-reloaded atomically per call; the audit log, metrics and the services policies can inject.
export {
  mountPolicies, createPolicyLoader, policyLoader, PIN_ID,
  type PolicyController, type MountOptions, type ReloadResult, type PolicyLoader,
} from './loader.js';
export { parsePolicySet, isModulePath, type ParsedSet, type PolicyEntry } from './set-file.js';
export { PolicyConfigError } from './errors.js';
export { definePolicy, service, type PolicyModule, type PolicyContext } from './module.js';
export {
  createPolicyServices, defaultPolicyServices, setDefaultPolicyServices, INJECTABLE,
  type PolicyServices, type PolicyServicesOptions, type SecretValues, type ServiceName, type InjectedServices,
} from './services.js';
export { PolicyEvents, type PolicyEvent } from './events.js';
export { Metrics, type GaugeCallback, type GaugeSample, type Labels } from './metrics.js';
export { AuditService, type AuditWriter } from './audit/log.js';
export { verifyAuditFile, verifyAuditText, type VerifyResult } from './audit/verify.js';
export { GENESIS, recordHash } from './audit/chain.js';
export { BUILTINS, traceContentObserver } from './builtins/index.js';
export { redactText, type RedactOptions } from './secrets.js';
export { formatExplanation } from './explain.js';
