// One host grammar (docs/decisions.md, "Network"): how allowed_hosts entries, guard-hosts rules and ceiling entries
// are parsed and written. The sandbox matches requests with it, manifests store its normal form,
// and guard-hosts, ceilings and `inspect` read hosts through it, so a spelling cannot mean one
// host to a check and another to the connection.
export {
  DEFAULT_PORTS,
  canonicalHost,
  checkHostPattern,
  hostPort,
  matchHost,
  normalHostPattern,
  parseHostPattern,
  patternMatches,
  type HostPattern,
  type Scheme,
} from './pattern.js';
export { parseHostRule, ruleCovers, ruleOverlaps, type HostRule, type HostTarget } from './rule.js';
export { parseIpv4, parseIpv6 } from './ip.js';
