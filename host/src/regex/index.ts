// Linear-time regular expressions for every pattern that comes from a manifest or a policy
// (architecture.md §6). V8's backtracking engine takes exponential time on patterns like ^(a+)+$, on the
// main thread, before any deadline applies; RE2 (re2js, a pure JS port) matches in time linear in
// the input. A pattern RE2 cannot compile (lookaround, backreferences) is refused at load.
import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';
import { messageOf } from '../errors/index.js';

// re2js is loaded on the first pattern compiled: a start whose manifests come from the parse cache
// and whose policies have no pattern never needs it (~10 ms of start-up). Its CommonJS build keeps
// compiling synchronous.
const requireCjs = createRequire(import.meta.url);
let engine: typeof RE2JS | undefined;
const re2 = (): typeof RE2JS => (engine ??= (requireCjs('re2js') as typeof import('re2js')).RE2JS);

export interface LinearRegex {
  /** The pattern as written. */
  readonly source: string;
  /** Whether the pattern matches anywhere in `text` (anchors as written). */
  test(text: string): boolean;
  /** Every match replaced by `replacement`, taken literally. */
  replaceAll(text: string, replacement: string): string;
  /** Every match replaced by what `replace` returns for it (the match, then its groups). */
  replaceAllWith(text: string, replace: (match: string, ...groups: Array<string | undefined>) => string): string;
  /** `/source/flags`: unique per pattern (ajv keys its compiled patterns on it). */
  toString(): string;
}

export interface LinearRegexOptions {
  ignoreCase?: boolean;
}

/** The pattern compiled for RE2, or the reason it cannot be, e.g. "invalid or unsupported Perl syntax: `(?=`". */
export function compileLinear(source: string, options: LinearRegexOptions = {}): LinearRegex | string {
  let re: RE2JS;
  try {
    // translateRegExp accepts ECMAScript spellings RE2 writes differently (\u00e9, (?<name>)).
    const RE2 = re2();
    re = RE2.compile(RE2.translateRegExp(source), options.ignoreCase === true ? RE2.CASE_INSENSITIVE : 0);
  } catch (err) {
    const message = messageOf(err);
    return message.replace(/^error parsing regexp: /, '');
  }
  const flags = options.ignoreCase === true ? 'i' : '';
  return {
    source,
    test: (text: string) => re.test(text),
    replaceAll: (text: string, replacement: string): string =>
      re.matcher(text).replaceAll(re2().quoteReplacement(replacement)),
    replaceAllWith: (text, replace) =>
      re
        .matcher(text)
        .replaceAll((...args: unknown[]) =>
          replace(...(args.slice(0, re.groupCount() + 1) as [string, ...Array<string | undefined>])),
        ),
    toString: () => `/${source}/${flags}`,
  };
}

/** Like compileLinear, but throws (with the pattern named) when it cannot compile. */
export function linearRegex(source: string, options: LinearRegexOptions = {}): LinearRegex {
  const re = compileLinear(source, options);
  if (typeof re === 'string')
    throw new SyntaxError(
      `pattern ${JSON.stringify(source)} cannot be used: ${re} (patterns run on RE2: no lookaround or backreferences)`,
    );
  return re;
}

/** undefined when `source` compiles on RE2, else the rule it breaks, naming the pattern. */
export function linearRegexProblem(source: string): string | undefined {
  const re = compileLinear(source);
  return typeof re === 'string'
    ? `pattern ${JSON.stringify(source)} cannot be used: ${re} (patterns run on RE2, in linear time: no lookaround or backreferences)`
    : undefined;
}

/**
 * ajv's `code.regExp` engine: JSON Schema `pattern` and `patternProperties` compile on RE2. The
 * `u` flag ajv passes is what RE2 always does (it matches code points).
 */
export const ajvRegExpEngine = Object.assign((pattern: string, _flags: string): LinearRegex => linearRegex(pattern), {
  code: 'toolgate-linear-regex',
});
