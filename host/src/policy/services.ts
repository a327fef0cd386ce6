// The services the host gives policy modules (named in a module's `inject`), and the process-wide
// default the CLI and server share: the server exposes metrics, the approval queue and events.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import {
  ApprovalQueue,
  ApprovalRouter,
  SharedApprovalQueue,
  type PendingQueue,
  type TtyChannelOptions,
} from '../approval/index.js';
import type { SharedState } from '../shared-state/index.js';
import { AuditService } from './audit/log.js';
import { PolicyEvents } from './events.js';
import { memoryBuckets, type BucketsFactory } from './buckets.js';
import { sharedBuckets } from './shared-buckets.js';
import { Metrics } from './metrics.js';

export interface PolicyServices {
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** The approval service the pipeline asks; channels are configured by the `approvals` entry. */
  readonly approvals: ApprovalRouter;
  /** Pending approvals for the `queue` channel (the server lists and resolves them). */
  readonly queue: PendingQueue;
  /** Where rate-limit keeps its buckets: this process's memory, or the replicas' shared state. */
  readonly buckets: BucketsFactory;
  readonly audit: AuditService;
  readonly events: PolicyEvents;
  /** Where audit-log writes when its entry names no path: $TOOLGATE_HOME/audit.jsonl. */
  readonly auditPath: string;
  /** The terminal the `tty` approval channel uses. */
  readonly tty: TtyChannelOptions;
  /** Where declared secret values are read from (to redact them). */
  readonly env: NodeJS.ProcessEnv;
  /** The values of declared secrets, so redact and the audit log can cut them out. */
  readonly secrets: SecretValues;
  /** The replicas' shared state, when the server was given one (`serve --state`). */
  readonly state?: SharedState;
}

export interface SecretValues {
  /** Values of the named secrets that are set (empty and very short ones are skipped). */
  valuesOf(names: readonly string[]): string[];
}

/** Names a policy module may list in `inject`. */
export const INJECTABLE = [
  'logger',
  'metrics',
  'approvals',
  'queue',
  'buckets',
  'audit',
  'events',
  'tty',
  'secrets',
] as const;
export type ServiceName = (typeof INJECTABLE)[number];
export type InjectedServices = Partial<Pick<PolicyServices, ServiceName>>;

export interface PolicyServicesOptions {
  logger?: Logger;
  env?: NodeJS.ProcessEnv;
  auditPath?: string;
  tty?: TtyChannelOptions;
  /** The replicas' shared state (`serve --state`): the approval queue and rate-limit buckets live there. */
  state?: SharedState;
}

export function createPolicyServices(options: PolicyServicesOptions = {}): PolicyServices {
  const env = options.env ?? process.env;
  const logger = options.logger ?? pino({ level: 'silent' });
  const home = env.TOOLGATE_HOME ?? join(homedir(), '.toolgate');
  const auditPath = options.auditPath ?? join(home, 'audit.jsonl');
  let tty = options.tty;
  return {
    logger,
    metrics: new Metrics({
      onError: (err, name) => logger.warn({ err, metric: name }, 'metrics gauge callback failed'),
    }),
    approvals: new ApprovalRouter({
      onError: (err) => logger.warn({ err }, 'approval channel failed; treated as unavailable'),
    }),
    // Held only while a server that lists and answers it runs (`serve --http`); elsewhere (`call`,
    // `serve --stdio`) nobody could answer, so an ask routed to it is denied at once.
    queue:
      options.state !== undefined
        ? new SharedApprovalQueue(options.state, { onlyWhileOpen: true, logger })
        : new ApprovalQueue({ onlyWhileOpen: true }),
    buckets: options.state !== undefined ? sharedBuckets(options.state) : memoryBuckets,
    audit: new AuditService({ defaultPath: auditPath }),
    events: new PolicyEvents(),
    auditPath,
    // Lazy: touching process.stdin opens it, which a server on stdio must not have done for it.
    get tty(): TtyChannelOptions {
      tty ??= { input: process.stdin, output: process.stderr, isTTY: process.stdin.isTTY === true };
      return tty;
    },
    env,
    ...(options.state !== undefined ? { state: options.state } : {}),
    secrets: {
      valuesOf: (names) => names.map((n) => env[n]).filter((v): v is string => typeof v === 'string' && v.length >= 4),
    },
  };
}

let shared: PolicyServices | undefined;

/** The process-wide services used by `policyLoader` (created on first use). */
export function defaultPolicyServices(): PolicyServices {
  shared ??= createPolicyServices();
  return shared;
}

/** Replaces the process-wide services (the CLI does this once, with its logger and I/O). */
export function setDefaultPolicyServices(services: PolicyServices): void {
  shared = services;
}
