// Patterns for what must not leak: tokens and keys in well-known shapes, `key=value` secrets, and
// email addresses. Used by the redact built-in and by the audit log (records never carry secrets).
import type { LinearRegex } from '../regex/index.js';

const TOKEN_PATTERNS: readonly RegExp[] = [
  /\bgh[pousr]_[A-Za-z0-9]{20,}\b/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}\b/g,
  /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}\b/g, // OpenAI / Anthropic style keys
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key ids
  /\bxox[abprs]-[A-Za-z0-9-]{10,}\b/g, // Slack
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g, // JWTs
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
];
/** These keep their first group (the label) and lose only the secret after it. */
const LABELLED: readonly RegExp[] = [
  /\b((?:Bearer|Basic)\s+)[A-Za-z0-9._~+/=-]{8,}/g,
  /\b((?:api[_-]?key|access[_-]?token|auth[_-]?token|secret|password|passwd|token)["']?\s*[:=]\s*["']?)[^\s"',;]{4,}/gi,
];

const EMAIL = /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b/g;

export interface RedactOptions {
  tokens?: boolean;
  emails?: boolean;
  /** Exact secret values to remove wherever they occur (e.g. a tool's declared secrets). */
  values?: readonly string[];
  /** A policy's own patterns: linear-time (RE2), since they come from a policy file. */
  patterns?: readonly LinearRegex[];
  replacement?: string;
}

export function redactText(text: string, options: RedactOptions = {}): string {
  const mark = options.replacement ?? '[REDACTED]';
  let out = text;
  for (const v of options.values ?? []) {
    // Very short values would redact half the output; a secret that short is not one.
    if (v.length >= 4) out = out.split(v).join(mark);
  }
  if (options.tokens !== false) {
    for (const re of TOKEN_PATTERNS) out = out.replace(re, mark);
    for (const re of LABELLED) out = out.replace(re, (_m: string, label: string) => `${label}${mark}`);
  }
  if (options.emails !== false) out = out.replace(EMAIL, mark);
  for (const re of options.patterns ?? []) out = re.replaceAll(out, mark);
  return out;
}
