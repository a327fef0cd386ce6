// The sandbox's HTTP gate (architecture.md §4): what a module's http_request may reach, checked
// per hop, pinned to the checked addresses, capped in bytes and time. Never throws from request().
export type {
  HttpRequestSpec,
  HttpOutcome,
  HttpPolicy,
  HttpGate,
  ClosableHttpGate,
  HostLookup,
  ResolvedAddress,
} from './types.js';
export { createHttpGate } from './gate.js';
export { matchHost, checkHostPattern, parseHostPattern, type HostPattern } from '../../host-grammar/index.js';
export { classifyAddress, type AddressClass } from './address-class.js';
export { LIMITS as HTTP_LIMITS } from './request-shape.js';
