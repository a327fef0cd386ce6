// Which of a hop's addresses the connection may use (architecture.md §4, network). A resolver
// lists a name's answers in an order of its own (stock Debian maps `::1 localhost` before
// 127.0.0.1), so every answer is checked and the allowed ones are kept, in the resolver's order;
// a refused answer is dropped and never connected to. Only when no answer is allowed is the hop
// refused, and the message names every answer and what allowed_hosts holds.
import { isIP } from 'node:net';
import { isOwnListener } from '../../own-sockets/index.js';
import { classifyAddress, describeClass, type AddressClass } from './address-class.js';
import { canonicalHost, hostPort, patternMatches, type HostPattern, type Scheme } from '../../host-grammar/index.js';
import type { ResolvedAddress } from './types.js';

/** Why one answer may not be reached. */
type Refusal =
  | { kind: 'unreadable'; raw: string }
  | { kind: 'own'; address: string }
  | { kind: 'special'; address: string; cls: AddressClass };

/** Bounds on a refusal's text: a resolver (or a manifest) may hand over many entries. */
const MAX_NAMED_ANSWERS = 32;
const MAX_NAMED_ENTRIES = 16;

/**
 * The answers the connection may use (each a canonical IP literal), or the refusal's text.
 * `host` is canonical: a name, or an IP literal whose only answer is itself.
 */
export function allowedAnswers(
  host: string,
  port: number,
  scheme: Scheme,
  patterns: readonly HostPattern[],
  answers: readonly ResolvedAddress[],
): ResolvedAddress[] | string {
  const allowed: ResolvedAddress[] = [];
  const refusals: Refusal[] = [];
  for (const answer of answers) {
    const verdict = checkAnswer(port, scheme, patterns, answer.address);
    if (typeof verdict === 'string') allowed.push({ address: verdict, family: isIP(verdict) === 6 ? 6 : 4 });
    else refusals.push(verdict);
  }
  if (allowed.length > 0) return allowed;
  if (isIP(host) !== 0 && refusals[0] !== undefined) return literalRefusal(refusals[0], port);
  return nameRefusal(host, port, refusals, patterns);
}

/**
 * The canonical address when `host` may be reached there, else why not. A special address is
 * reachable only when that very address is listed (for this port): a listed name, or a glob, never
 * vouches for where it happens to resolve.
 */
function checkAnswer(port: number, scheme: Scheme, patterns: readonly HostPattern[], raw: string): string | Refusal {
  const address = canonicalHost(raw);
  // An answer the host grammar cannot read (a zone id, garbage from a resolver) is never a
  // place to connect to: the raw text must not reach the socket unchecked.
  if (address === undefined || isIP(address) === 0) return { kind: 'unreadable', raw };
  // toolgate's own sockets are never reachable, whatever allowed_hosts says: a tool calling its
  // own server could answer its own approvals or borrow other tools' capabilities.
  if (isOwnListener(address, port)) return { kind: 'own', address };
  const cls = classifyAddress(address);
  if (cls === undefined) return address;
  if (patterns.some((p) => p.kind === 'ip' && patternMatches(p, address, port, scheme))) return address;
  return { kind: 'special', address, cls };
}

/** An IP literal URL: the literal is the one answer. */
function literalRefusal(r: Refusal, port: number): string {
  if (r.kind === 'unreadable')
    return `${JSON.stringify(r.raw.slice(0, 64))} is not an IP address this sandbox can check`;
  const literal = hostPort(r.address, port);
  return r.kind === 'own'
    ? `${literal} is this toolgate process's own server; tools may never connect to it`
    : `${literal} is ${describeClass(r.cls)}; list it in allowed_hosts to allow it`;
}

function nameRefusal(
  host: string,
  port: number,
  refusals: readonly Refusal[],
  patterns: readonly HostPattern[],
): string {
  const allowedHosts = `allowed_hosts is ${entriesText(patterns)}`;
  const [only] = refusals;
  if (refusals.length === 1 && only !== undefined) return `${host} ${oneAnswerText(only, port)}; ${allowedHosts}`;
  const shown = refusals.slice(0, MAX_NAMED_ANSWERS);
  const more = refusals.length - shown.length;
  const names = shown.map(answerText).join(', ') + (more > 0 ? ` and ${more} more` : '');
  const reasons = shown.map((r) => reasonText(r, port)).join('; ');
  return `${host} resolves to ${names}, and none of them is allowed: ${reasons}; ${allowedHosts}`;
}

function oneAnswerText(r: Refusal, port: number): string {
  if (r.kind === 'unreadable') return `resolved to ${answerText(r)}, which is not an IP address this sandbox can check`;
  const literal = hostPort(r.address, port);
  return r.kind === 'own'
    ? `resolves to ${literal}, this toolgate process's own server; tools may never connect to it`
    : `resolves to ${r.address}, ${describeClass(r.cls)}; list ${literal} in allowed_hosts to allow it`;
}

function reasonText(r: Refusal, port: number): string {
  if (r.kind === 'unreadable') return `${answerText(r)} is not an IP address this sandbox can check`;
  const literal = hostPort(r.address, port);
  return r.kind === 'own'
    ? `${literal} is this toolgate process's own server`
    : `${r.address} is ${describeClass(r.cls)} (list ${literal} in allowed_hosts to allow it)`;
}

function answerText(r: Refusal): string {
  return r.kind === 'unreadable' ? JSON.stringify(r.raw.slice(0, 64)) : r.address;
}

function entriesText(patterns: readonly HostPattern[]): string {
  const shown = patterns.slice(0, MAX_NAMED_ENTRIES).map((p) => JSON.stringify(p.source));
  const more = patterns.length - shown.length;
  return `[${shown.join(', ')}${more > 0 ? `, and ${more} more` : ''}]`;
}
