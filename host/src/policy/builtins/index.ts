// The built-in policies by the name a YAML entry's `use` gives.
import type { PolicyModule } from '../module.js';
import { approvals } from './approvals.js';
import { ask } from './ask.js';
import { clientRequests } from './client-requests.js';
import { denyArgs } from './deny-args.js';
import { guardHosts } from './guard-hosts.js';
import { guardPaths } from './guard-paths.js';
import { planMode } from './plan-mode.js';
import { auditLog, metrics } from './observers.js';
import { maxOutput, redact } from './output.js';
import { rateLimit } from './rate-limit.js';
import { allowTools, denyTools } from './tool-lists.js';
import { deadline, retry } from './wrappers.js';

// Each built-in has its own config type; the table erases it (config is validated by its schema).
type AnyPolicy = PolicyModule<never>;

export const BUILTINS: ReadonlyMap<string, PolicyModule<unknown>> = new Map(
  (
    [
      denyTools,
      allowTools,
      denyArgs,
      ask,
      guardPaths,
      guardHosts,
      planMode,
      rateLimit,
      deadline,
      retry,
      redact,
      maxOutput,
      auditLog,
      metrics,
      approvals,
      clientRequests,
    ] as AnyPolicy[]
  ).map((m) => [m.name, m as unknown as PolicyModule<unknown>]),
);
