// Text from manifests, packages, tools and agents reaches people: in consent prompts, approval
// prompts and cards, `inspect`, `list`, error lines, and forms an MCP client shows. Escape
// sequences (ESC), carriage returns and bidirectional overrides there can redraw what the person
// reads (an rw mount shown as "may read /docs"); zero-width, format and tag characters can hide
// text the tool still receives ("safe-value" followed by invisible "then delete everything").
// So manifest text refuses controls and bidi at load, and everything shown spells out what
// remains with the one escaper here (docs/architecture.md, "Text shown to people").

/** C0 controls but tab and newline, DEL, C1 controls, bidi marks/overrides/isolates, line/paragraph separators. */
const CONTROL_OR_BIDI = String.raw`\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069`;
/**
 * Characters that show as nothing: every format character (Unicode category Cf: zero-width
 * space/joiner/non-joiner, word joiner, BOM, soft hyphen, tag characters), the unassigned rest of
 * the tag block, variation selectors, the combining grapheme joiner and Hangul fillers.
 */
const INVISIBLE = String.raw`\p{Cf}\u034f\u115f\u1160\u180e\u3164\ufe00-\ufe0f\uffa0\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}`;

/**
 * The character class of everything the escaper spells out, as RegExp source for the `u` flag.
 * The /ui page's script is served with this very source (host/src/ui/assets.ts), so the browser
 * spells out the same characters.
 */
export const HIDDEN_CHARACTER_CLASS = `[${CONTROL_OR_BIDI}${INVISIBLE}]`;

const HIDDEN = new RegExp(HIDDEN_CHARACTER_CLASS, 'gu');
const UNSAFE_ONE = new RegExp(`[${CONTROL_OR_BIDI}]`, 'u');
const HIDDEN_ONE = new RegExp(HIDDEN_CHARACTER_CLASS, 'u');
const LINE_BREAKS = /[\t\n]/;

/** `\uXXXX` per UTF-16 unit: a tag character is a surrogate pair, so JSON and JS read it back. */
function spelled(c: string): string {
  let out = '';
  for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

function problemAt(bad: RegExpExecArray | null, opts: { multiline?: boolean }, what: string): string | undefined {
  if (bad === null) return undefined;
  const allowed = opts.multiline === true ? ' (tab and newline are allowed)' : '';
  return `must not contain ${what}${allowed}; found ${spelled(bad[0])} at offset ${bad.index}`;
}

/**
 * undefined when `text` may be shown to a person as is, else the rule it breaks. Descriptions
 * (multiline) may hold tab and newline; names, paths and keys may not.
 */
export function shownTextProblem(text: string, opts: { multiline?: boolean } = {}): string | undefined {
  const bad = UNSAFE_ONE.exec(text) ?? (opts.multiline === true ? null : LINE_BREAKS.exec(text));
  return problemAt(bad, opts, 'control, escape or bidirectional-override characters');
}

/** As shownTextProblem, and no invisible or format character either (identifiers: a URI, a name). */
export function hiddenTextProblem(text: string, opts: { multiline?: boolean } = {}): string | undefined {
  const bad = HIDDEN_ONE.exec(text) ?? (opts.multiline === true ? null : LINE_BREAKS.exec(text));
  return problemAt(bad, opts, 'control, escape, bidirectional or invisible characters');
}

/**
 * The one escaper for text shown to people: every control, bidi, invisible and format character
 * spelled `\uXXXX` (tab and newline kept). Inside a JSON string that spelling is the same
 * character, so JSON output stays valid and means the same.
 */
export function spellHidden(text: string): string {
  return text.replace(HIDDEN, spelled);
}

/** Every string in a JSON value, keys too, spelled out (a form an MCP client will render). */
export function spellHiddenDeep(value: unknown): unknown {
  if (typeof value === 'string') return spellHidden(value);
  if (Array.isArray(value)) return value.map(spellHiddenDeep);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [spellHidden(k), spellHiddenDeep(v)]));
  }
  return value;
}

/**
 * A writer that escapes everything but a carriage return at the very start of a write (a
 * progress bar redrawing its own line).
 */
export function terminalWriter(write: (text: string) => void): (text: string) => void {
  return (text) => {
    if (text.startsWith('\r')) write(`\r${spellHidden(text.slice(1))}`);
    else write(spellHidden(text));
  };
}
