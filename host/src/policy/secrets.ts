// Patterns for what must not leak: tokens and keys in well-known shapes, `key=value` secrets, and
// email addresses. Used by the redact built-in and by the audit log (records never carry secrets).
// They run on RE2 like every other pattern: the output they scan is the tool's, so it is hostile
// input. On V8's backtracking engine the email pattern took ~10 s for 64 KiB of "a." and the
// private-key pattern ~2.8 s per MiB of BEGIN lines with no END, all on the main thread. Each
// pattern runs on its own (re2js skips text that lacks a pattern's literals, which a combined
// alternation would defeat); the case-insensitive ones are skipped when their words are absent.
import { linearRegex, type LinearRegex } from '../regex/index.js';

interface Builtin {
  re: LinearRegex;
  /** Lower-case words one of which must occur for the pattern to match; absent = always run. */
  words?: readonly string[];
  /** Keeps its first group (the label) and loses only the secret after it. */
  labelled?: boolean;
}

interface Builtins {
  tokens: readonly Builtin[];
  labelled: readonly Builtin[];
  email: Builtin;
}
let compiled: Builtins | undefined;

/** Compiled on first use: at module load they cost every start-up ~40-100 ms (RE2 compiles). */
function builtins(): Builtins {
  compiled ??= { tokens: tokenPatterns(), labelled: labelledPatterns(), email: emailPattern() };
  return compiled;
}

const tokenPatterns = (): readonly Builtin[] =>
  [
    String.raw`\bgh[pousr]_[A-Za-z0-9]{20,}\b`, // GitHub tokens
    String.raw`\bgithub_pat_[A-Za-z0-9_]{20,}\b`,
    String.raw`\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}\b`, // OpenAI / Anthropic style keys
    String.raw`\bAKIA[0-9A-Z]{16}\b`, // AWS access key ids
    String.raw`\bxox[abprs]-[A-Za-z0-9-]{10,}\b`, // Slack
    String.raw`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b`, // JWTs
    String.raw`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----`,
  ].map((p) => ({ re: linearRegex(p) }));

const labelledPatterns = (): readonly Builtin[] => [
  {
    re: linearRegex(String.raw`\b((?:Bearer|Basic)\s+)[A-Za-z0-9._~+/=-]{8,}`, { ignoreCase: true }),
    words: ['bearer', 'basic'],
    labelled: true,
  },
  {
    re: linearRegex(
      String.raw`\b((?:api[_-]?key|access[_-]?token|auth[_-]?token|secret|password|passwd|token)["']?\s*[:=]\s*["']?)[^\s"',;]{4,}`,
      { ignoreCase: true },
    ),
    words: ['key', 'token', 'secret', 'passw'],
    labelled: true,
  },
];

const emailPattern = (): Builtin => ({
  re: linearRegex(String.raw`\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b`),
  words: ['@'],
});

function apply(text: string, p: Builtin, mark: string): string {
  if (p.words !== undefined) {
    const lower = text.toLowerCase();
    if (!p.words.some((w) => lower.includes(w))) return text;
  }
  return p.labelled === true
    ? p.re.replaceAllWith(text, (_m, label) => `${label ?? ''}${mark}`)
    : p.re.replaceAll(text, mark);
}

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
    for (const p of builtins().tokens) out = apply(out, p, mark);
    for (const p of builtins().labelled) out = apply(out, p, mark);
  }
  if (options.emails !== false) out = apply(out, builtins().email, mark);
  for (const re of options.patterns ?? []) out = re.replaceAll(out, mark);
  return out;
}
