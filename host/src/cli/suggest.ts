// "Did you mean ...?" for a mistyped command, subcommand, tool or flag: the closest known name by
// edit distance, offered only when it is close enough to be a typo and not a different word.

/** Levenshtein distance with adjacent transpositions counted as one edit ("clal" -> "call"). */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i, ...new Array<number>(b.length).fill(0)]);
  const row0 = rows[0] as number[];
  for (let j = 0; j <= b.length; j++) row0[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const prev = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = d;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/** The known name closest to `word`, when within a typo's reach (a third of its length, at least 1). */
export function closest(word: string, known: Iterable<string>): string | undefined {
  const names = [...known];
  const limit = Math.max(1, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of names) {
    const d = editDistance(word.toLowerCase(), name.toLowerCase());
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  // A known name that starts with the word ("inst" -> "install") is a suggestion too.
  if (bestDistance > limit) return names.find((n) => word.length >= 2 && n.startsWith(word));
  return best;
}

/** " (did you mean 'x'?)" or '' : appended to the message that says what was not found. */
export function didYouMean(
  word: string,
  known: Iterable<string>,
  quote: (s: string) => string = (s) => `'${s}'`,
): string {
  const hit = closest(word, known);
  return hit === undefined || hit === word ? '' : `; did you mean ${quote(hit)}?`;
}
