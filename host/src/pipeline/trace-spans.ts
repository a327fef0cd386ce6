// What the pipeline's spans say (docs/observability.md): the decision trail as span attributes.
// Only ids, kinds and outcomes: never a reason text, which may quote the arguments.
import type { SpanAttributes } from '../telemetry/index.js';
import type { DecisionTrail } from './types.js';

export function decisionAttributes(trail: Readonly<DecisionTrail>): SpanAttributes {
  return {
    'toolgate.policy.decided_by': trail.decidedBy ?? undefined,
    'toolgate.policy.decision': trail.decision?.kind,
    'toolgate.policy.outcome': trail.final,
    'toolgate.policy.guard': trail.guard?.id,
    'toolgate.approval.outcome': trail.approval?.outcome,
  };
}
