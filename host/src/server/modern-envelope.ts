// What a 2026-07-28 request says about its client, read from the request's _meta envelope (the SDK
// lifts the reserved keys into ctx.mcpReq.envelope but types that as an empty object).
import type { ServerContext } from '@modelcontextprotocol/server';
import { CLIENT_LOG_LEVELS, type ClientLogLevel } from '../tool/index.js';

export interface ClientEnvelope {
  protocolVersion?: string;
  clientCapabilities?: Record<string, unknown>;
  clientInfo?: { name?: string; version?: string };
  logLevel?: ClientLogLevel;
}

const PREFIX = 'io.modelcontextprotocol/';
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function envelopeOf(ctx: ServerContext): ClientEnvelope {
  const raw: Record<string, unknown> = isObject(ctx.mcpReq.envelope) ? ctx.mcpReq.envelope : {};
  const field = (name: string): unknown => raw[name] ?? raw[`${PREFIX}${name}`];
  const out: ClientEnvelope = {};
  const version = field('protocolVersion');
  if (typeof version === 'string') out.protocolVersion = version;
  const caps = field('clientCapabilities');
  if (isObject(caps)) out.clientCapabilities = caps;
  const info = field('clientInfo');
  if (isObject(info))
    out.clientInfo = {
      ...(typeof info['name'] === 'string' ? { name: info['name'] } : {}),
      ...(typeof info['version'] === 'string' ? { version: info['version'] } : {}),
    };
  const level = field('logLevel');
  if (typeof level === 'string' && (CLIENT_LOG_LEVELS as readonly string[]).includes(level))
    out.logLevel = level as ClientLogLevel;
  return out;
}
