// A word-level diff of what the model reads, for people reviewing an upgrade: `[-old words-]` and
// `{+new words+}` inside a few words of context, as `git diff --word-diff=plain` prints it.
import { visibleText } from './screen.js';
import { sortedJson, MODEL_PARTS, modelPart, type ModelPart } from './model-text.js';
import type { ModelToolView } from '../tool/index.js';

type Op = { kind: 'same' | 'del' | 'add'; word: string };

/** Past this many word pairs the changed middle is shown whole rather than aligned. */
const MAX_CELLS = 4_000_000;
const CONTEXT = 6;

function align(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const head: Op[] = a.slice(0, start).map((word) => ({ kind: 'same', word }));
  const tail: Op[] = a.slice(endA).map((word) => ({ kind: 'same', word }));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  if (midA.length * midB.length > MAX_CELLS) {
    return [
      ...head,
      ...midA.map((word): Op => ({ kind: 'del', word })),
      ...midB.map((word): Op => ({ kind: 'add', word })),
      ...tail,
    ];
  }
  // Longest common subsequence, table from the end so the walk goes forward.
  const w = midB.length + 1;
  const lcs = new Uint32Array((midA.length + 1) * w);
  for (let i = midA.length - 1; i >= 0; i--) {
    for (let j = midB.length - 1; j >= 0; j--) {
      lcs[i * w + j] =
        midA[i] === midB[j]
          ? (lcs[(i + 1) * w + j + 1] ?? 0) + 1
          : Math.max(lcs[(i + 1) * w + j] ?? 0, lcs[i * w + j + 1] ?? 0);
    }
  }
  const mid: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < midA.length || j < midB.length) {
    if (i < midA.length && j < midB.length && midA[i] === midB[j])
      mid.push({ kind: 'same', word: midA[i++] as string }), j++;
    // Removals before additions where both keep the alignment, as diff tools print them.
    else if (i < midA.length && (j >= midB.length || (lcs[(i + 1) * w + j] ?? 0) >= (lcs[i * w + j + 1] ?? 0)))
      mid.push({ kind: 'del', word: midA[i++] as string });
    else mid.push({ kind: 'add', word: midB[j++] as string });
  }
  return [...head, ...mid, ...tail];
}

/** One line per changed region, with CONTEXT words either side; [] when the texts are equal. */
export function wordDiff(before: string, after: string): string[] {
  const ops = align(before.split(/\s+/).filter(Boolean), after.split(/\s+/).filter(Boolean));
  const changed = ops.map((o, i) => (o.kind === 'same' ? -1 : i)).filter((i) => i >= 0);
  if (changed.length === 0) return [];
  const lines: string[] = [];
  let k = 0;
  while (k < changed.length) {
    const first = changed[k] as number;
    let last = first;
    while (k + 1 < changed.length && (changed[k + 1] as number) - last <= 2 * CONTEXT) last = changed[++k] as number;
    k++;
    const from = Math.max(0, first - CONTEXT);
    const to = Math.min(ops.length, last + CONTEXT + 1);
    let text = from > 0 ? '… ' : '';
    for (let x = from; x < to; x++) {
      const op = ops[x] as Op;
      const word = visibleText(op.word);
      const prev = ops[x - 1]?.kind;
      const next = ops[x + 1]?.kind;
      if (op.kind === 'same') text += `${word} `;
      else if (op.kind === 'del')
        text += `${prev === 'del' && x > from ? '' : '[-'}${word}${next === 'del' && x + 1 < to ? ' ' : '-] '}`;
      else text += `${prev === 'add' && x > from ? '' : '{+'}${word}${next === 'add' && x + 1 < to ? ' ' : '+} '}`;
    }
    lines.push(text.trimEnd() + (to < ops.length ? ' …' : ''));
  }
  return lines;
}

function partText(view: ModelToolView, part: ModelPart): string {
  const value = modelPart(view, part);
  return typeof value === 'string' ? value : value === null ? '(none)' : sortedJson(value, 1);
}

/** Every part the model reads that changed, each with its word diff. */
export function diffModelText(before: ModelToolView, after: ModelToolView): { changed: ModelPart[]; lines: string[] } {
  const changed: ModelPart[] = [];
  const lines: string[] = [];
  for (const part of MODEL_PARTS) {
    const a = partText(before, part);
    const b = partText(after, part);
    if (a === b) continue;
    changed.push(part);
    const diff = wordDiff(a, b);
    lines.push(`${part}:`, ...(diff.length > 0 ? diff : ['(whitespace only)']).map((l) => `  ${l}`));
  }
  return { changed, lines };
}
