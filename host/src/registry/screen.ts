// Screens the text a model will read for the marks of tool poisoning: characters a person cannot
// see (zero-width, tag characters, bidirectional controls), text hidden in HTML comments or tags
// (which chat UIs do not render but models read), and sentences addressed to the model rather than
// describing the tool. A flag is shown at consent; a ceiling can refuse flagged tools outright.
import type { ModelToolView } from '../tool/index.js';
import { HIDDEN_CHARACTER_CLASS, spellHidden } from '../terminal/index.js';
import { DESCRIBED_KINDS, DESCRIBED_KIND_NAMES, type DescribedText } from '../manifest/index.js';

export type FlagRule = 'invisible-character' | 'bidi-control' | 'html-comment' | 'html-tag' | 'model-instruction';

export interface TextFlag {
  /** Where in the model-visible text, e.g. `description`, `inputSchema.properties.url.description`. */
  where: string;
  rule: FlagRule;
  /** What was found, printable (hidden characters spelled `\uXXXX` by the shared escaper). */
  found: string;
}

const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
// Everything else the shared escaper spells out is an invisible character: zero-width and other
// format characters, Unicode tag characters (ASCII smuggling), variation selectors, Hangul
// fillers, soft hyphen, and control characters other than tab and newline.
const HIDDEN = new RegExp(HIDDEN_CHARACTER_CLASS, 'gu');

function firstInvisible(text: string): RegExpExecArray | null {
  HIDDEN.lastIndex = 0;
  for (let m = HIDDEN.exec(text); m !== null; m = HIDDEN.exec(text)) if (!BIDI.test(m[0])) return m;
  return null;
}
const HTML_COMMENT = /<!--[\s\S]*?(?:-->|$)/;
const HTML_TAG = /<\/?[A-Za-z][A-Za-z0-9_-]*(?:\s[^<>]*)?\/?>/;
const INSTRUCTIONS: RegExp[] = [
  /\b(?:ignore|disregard|forget|override)\b[^.!?\n]{0,40}\b(?:previous|prior|above|earlier|all|any|other|system|original)\b[^.!?\n]{0,20}\b(?:instructions?|prompts?|rules|messages|directions|guidelines)\b/i,
  /\b(?:do not|don't|never)\s+(?:tell|inform|mention|reveal|show|alert|notify|warn)\b[^.!?\n]{0,30}\buser\b/i,
  /\bwithout\s+(?:telling|informing|asking|notifying|alerting|showing)\s+(?:the\s+)?user\b/i,
  /\bthe\s+user\s+(?:must|should|need)\s+not\s+(?:know|see|be\s+told|notice)\b/i,
  /\bsystem\s+prompt\b/i,
  /\b(?:before|after)\s+(?:using|calling|running|invoking)\s+(?:this|any|the|other)\s+tools?\b[^.!?\n]{0,60}\b(?:read|send|call|include|pass|fetch|upload|copy)\b/i,
];

/**
 * The text with every hidden or direction-changing character spelled out: the one escaper that
 * approval prompts and cards use too (docs/architecture.md, "Text shown to people").
 */
export function visibleText(text: string): string {
  return spellHidden(text);
}

function excerpt(text: string, index: number, length: number): string {
  const from = Math.max(0, index - 20);
  const to = Math.min(text.length, index + length + 20);
  return `${from > 0 ? '…' : ''}${visibleText(text.slice(from, to)).replace(/\s+/g, ' ')}${to < text.length ? '…' : ''}`;
}

function screenString(text: string, where: string, out: TextFlag[]): void {
  const bidi = BIDI.exec(text);
  if (bidi) out.push({ where, rule: 'bidi-control', found: excerpt(text, bidi.index, bidi[0].length) });
  const hidden = firstInvisible(text);
  if (hidden) out.push({ where, rule: 'invisible-character', found: excerpt(text, hidden.index, hidden[0].length) });
  const comment = HTML_COMMENT.exec(text);
  if (comment)
    out.push({ where, rule: 'html-comment', found: excerpt(text, comment.index, Math.min(comment[0].length, 60)) });
  const tag = HTML_TAG.exec(text);
  if (tag) out.push({ where, rule: 'html-tag', found: excerpt(text, tag.index, tag[0].length) });
  for (const rule of INSTRUCTIONS) {
    const m = rule.exec(text);
    if (m) {
      out.push({ where, rule: 'model-instruction', found: excerpt(text, m.index, m[0].length) });
      break;
    }
  }
}

function walk(value: unknown, where: string, out: TextFlag[]): void {
  if (typeof value === 'string') screenString(value, where, out);
  else if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${where}[${i}]`, out));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      screenString(k, `${where} (key "${visibleText(k)}")`, out);
      walk(v, `${where}.${k}`, out);
    }
  }
}

/** Every flag in the model-visible text, in the order the model reads it. */
export function screenModelText(view: ModelToolView): TextFlag[] {
  const out: TextFlag[] = [];
  walk(view.name, 'name', out);
  if (view.title !== undefined) walk(view.title, 'title', out);
  walk(view.description, 'description', out);
  walk(view.inputSchema, 'inputSchema', out);
  if (view.outputSchema !== undefined) walk(view.outputSchema, 'outputSchema', out);
  if (view.annotations !== undefined) walk(view.annotations, 'annotations', out);
  return out;
}

/** Every flag in what a hyper-mcp module describes, each named by kind, served name or URI, and part. */
export function screenDescribedText(text: DescribedText): TextFlag[] {
  const out: TextFlag[] = [];
  for (const kind of DESCRIBED_KIND_NAMES) {
    for (const e of text[kind]) {
      for (const [part, value] of Object.entries(e.parts))
        walk(value, `${DESCRIBED_KINDS[kind].label} ${visibleText(e.key)}: ${part}`, out);
    }
  }
  return out;
}

const RULE_WORDS: Record<FlagRule, string> = {
  'invisible-character': 'an invisible character',
  'bidi-control': 'a bidirectional control character (text may read differently than it displays)',
  'html-comment': 'text hidden in an HTML comment',
  'html-tag': 'an HTML tag (hidden from people in most chat UIs, read by the model)',
  'model-instruction': 'an instruction addressed to the model',
};

export function describeFlag(flag: TextFlag): string {
  return `${flag.where}: ${RULE_WORDS[flag.rule]}: "${flag.found}"`;
}
