// Patterns for what must not leak: tokens and keys in well-known shapes, `key=value` secrets, and
// email addresses. Used by the redact built-in and by the audit log (records never carry secrets).
// They run on RE2 like every other pattern: the output they scan is the tool's, so it is hostile
// input. On V8's backtracking engine the email pattern took ~10 s for 64 KiB of "a." and the
// private-key pattern ~2.8 s per MiB of BEGIN lines with no END, all on the main thread. Each
// pattern runs on its own (re2js skips text that lacks a pattern's literals, which a combined
// alternation would defeat), and each is skipped when none of the words it needs is in the text.
import { linearRegex, type LinearRegex } from '../regex/index.js';

interface Builtin {
  /** Compiled on first need: a pattern whose words never occur is never compiled. */
  readonly re: () => LinearRegex;
  /** Lower-case words one of which must occur for the pattern to match. */
  readonly words: readonly string[];
  /** Keeps its first group (the label) and loses only the secret after it. */
  readonly labelled?: boolean;
}

interface Builtins {
  tokens: readonly Builtin[];
  labelled: readonly Builtin[];
  email: Builtin;
}

/**
 * Each pattern compiles when a text first holds one of its words: compiling all ten is ~40-100 ms
 * of RE2 (and loading re2js), which an audit line's first redaction paid on a fresh server's first
 * call although a call's record rarely holds any of them (docs/decisions.md, "JavaScript tools: the
 * first call"). The words are what each pattern cannot match without, so skipping is exact.
 */
function builtin(
  source: string,
  words: readonly string[],
  opts: { ignoreCase?: boolean; labelled?: boolean } = {},
): Builtin {
  let re: LinearRegex | undefined;
  return {
    re: () => (re ??= linearRegex(source, opts.ignoreCase === true ? { ignoreCase: true } : {})),
    words,
    ...(opts.labelled === true ? { labelled: true } : {}),
  };
}

const BUILTINS: Builtins = {
  tokens: [
    builtin(String.raw`\bgh[pousr]_[A-Za-z0-9]{20,}\b`, ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_']), // GitHub tokens
    builtin(String.raw`\bgithub_pat_[A-Za-z0-9_]{20,}\b`, ['github_pat_']),
    builtin(String.raw`\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}\b`, ['sk-']), // OpenAI / Anthropic style keys
    builtin(String.raw`\bAKIA[0-9A-Z]{16}\b`, ['akia']), // AWS access key ids
    builtin(String.raw`\bxox[abprs]-[A-Za-z0-9-]{10,}\b`, ['xoxa-', 'xoxb-', 'xoxp-', 'xoxr-', 'xoxs-']), // Slack
    builtin(String.raw`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b`, ['eyj']), // JWTs
    builtin(String.raw`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----`, ['-----begin ']),
  ],
  labelled: [
    builtin(String.raw`\b((?:Bearer|Basic)\s+)[A-Za-z0-9._~+/=-]{8,}`, ['bearer', 'basic'], {
      ignoreCase: true,
      labelled: true,
    }),
    builtin(
      String.raw`\b((?:api[_-]?key|access[_-]?token|auth[_-]?token|secret|password|passwd|token)["']?\s*[:=]\s*["']?)[^\s"',;]{4,}`,
      ['key', 'token', 'secret', 'passw'],
      { ignoreCase: true, labelled: true },
    ),
  ],
  email: builtin(String.raw`\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b`, ['@']),
};

/** The text as it stands, with its lower-case form made once and made again only after a change. */
class Scanned {
  #lower: string | undefined;
  constructor(public text: string) {}

  has(words: readonly string[]): boolean {
    const lower = (this.#lower ??= this.text.toLowerCase());
    return words.some((w) => lower.includes(w));
  }

  set(next: string): void {
    if (next !== this.text) this.#lower = undefined;
    this.text = next;
  }
}

function apply(s: Scanned, p: Builtin, mark: string): void {
  if (!s.has(p.words)) return;
  const re = p.re();
  s.set(
    p.labelled === true
      ? re.replaceAllWith(s.text, (_m, label) => `${label ?? ''}${mark}`)
      : re.replaceAll(s.text, mark),
  );
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
  const s = new Scanned(out);
  if (options.tokens !== false) {
    for (const p of BUILTINS.tokens) apply(s, p, mark);
    for (const p of BUILTINS.labelled) apply(s, p, mark);
  }
  if (options.emails !== false) apply(s, BUILTINS.email, mark);
  for (const re of options.patterns ?? []) s.set(re.replaceAll(s.text, mark));
  return s.text;
}
