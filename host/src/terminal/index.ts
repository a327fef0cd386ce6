// Text from manifests, packages and tools reaches people's terminals: in consent prompts,
// `inspect`, `list` and error lines. Escape sequences (ESC), carriage returns and bidirectional
// overrides there can redraw what the person reads (an rw mount shown as "may read /docs"). So
// manifest text refuses them at load, and everything printed escapes what remains.

/** C0 controls but tab and newline, DEL, C1 controls, bidi marks/overrides/isolates, line/paragraph separators. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
const UNSAFE_ONE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;
const LINE_BREAKS = /[\t\n]/;

function spelled(c: string): string {
  return `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`;
}

/**
 * undefined when `text` may be shown to a person as is, else the rule it breaks. Descriptions
 * (multiline) may hold tab and newline; names, paths and keys may not.
 */
export function shownTextProblem(text: string, opts: { multiline?: boolean } = {}): string | undefined {
  const bad = UNSAFE_ONE.exec(text) ?? (opts.multiline === true ? null : LINE_BREAKS.exec(text));
  if (bad === null) return undefined;
  const allowed = opts.multiline === true ? ' (tab and newline are allowed)' : '';
  return `must not contain control, escape or bidirectional-override characters${allowed}; found ${spelled(bad[0])} at offset ${bad.index}`;
}

/**
 * The text with every unsafe character spelled `\uXXXX` (tab and newline kept). Inside a JSON
 * string that spelling is the same character, so JSON output stays valid and means the same.
 */
export function escapeForTerminal(text: string): string {
  return text.replace(UNSAFE, spelled);
}

/**
 * A writer that escapes everything but a carriage return at the very start of a write (a
 * progress bar redrawing its own line).
 */
export function terminalWriter(write: (text: string) => void): (text: string) => void {
  return (text) => {
    if (text.startsWith('\r')) write(`\r${escapeForTerminal(text.slice(1))}`);
    else write(escapeForTerminal(text));
  };
}
