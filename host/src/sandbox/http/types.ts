// The contract between the sandbox core (which carries a module's http_request to the main thread)
// and this gate.

export interface HttpRequestSpec {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array | undefined;
}

/** Every failure is a value: request() never throws. `error` is a short message naming the rule. */
export type HttpOutcome =
  | { ok: true; status: number; headers: Record<string, string>; body: Uint8Array }
  | { ok: false; error: string };

/** One resolved address, as node:dns lookup({all:true}) gives it. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses. Injected by tests to simulate DNS answers. */
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

export interface HttpPolicy {
  /** allowed_hosts entries (see host-pattern.ts for the grammar). */
  allowedHosts: string[];
  maxResponseBytes: number;
  /** Deadline of one request, redirects included; it runs inside the call's own signal. */
  timeoutMs: number;
  /** Default node:dns lookup (all addresses, OS order). */
  lookup?: HostLookup;
  /** Cap on the request body the module may send. Default 1 MiB. */
  maxRequestBytes?: number;
  /** Redirect hops followed before giving up. Default 5. */
  maxRedirects?: number;
  /** Extra trusted CA certificates (PEM), added to Node's bundled roots: private CAs and tests. */
  extraCaPem?: string;
}

export interface HttpGate {
  request(req: HttpRequestSpec, signal: AbortSignal): Promise<HttpOutcome>;
}

/** What createHttpGate returns: a gate that also owns keep-alive connections to release. */
export interface ClosableHttpGate extends HttpGate {
  /** Drops every connection, idle or in flight; later requests open new ones. */
  close(): Promise<void>;
}
