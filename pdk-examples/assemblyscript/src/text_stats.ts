// text_stats: UTF-8 aware counts for a text: bytes, characters (code points), words, lines,
// sentences, paragraphs, and the most frequent words.
import { fail, inputText, outputText } from "../lib/toolgate";
import { JValue, argNumber, argString, parseArgs } from "../lib/json";

// Word characters: anything that is not whitespace, ASCII punctuation or common Unicode
// punctuation. Without Unicode property tables this is the honest approximation.
function isWordChar(cp: i32): bool {
  if (cp <= 0x20 || cp == 0x7f || cp == 0xa0) return false;
  if (cp < 0x80) {
    const isAlnum = (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a);
    return isAlnum || cp == 0x27 /* ' */ || cp == 0x5f /* _ */;
  }
  if (cp >= 0x2000 && cp <= 0x206f) return false; // general punctuation and spaces
  if (cp >= 0x3000 && cp <= 0x303f) return false; // CJK punctuation
  if (cp >= 0x2190 && cp <= 0x2bff) return false; // arrows, symbols, dingbats
  if (cp >= 0x1f000 && cp <= 0x1faff) return false; // emoji and pictographs
  if (cp >= 0xff01 && cp <= 0xff0f) return false; // fullwidth punctuation
  if (cp == 0xa1 || cp == 0xab || cp == 0xbb || cp == 0xbf) return false;
  return true;
}

function isSentenceEnd(cp: i32): bool {
  return cp == 0x2e || cp == 0x21 || cp == 0x3f || cp == 0x3002 || cp == 0xff01 || cp == 0xff1f || cp == 0x2026;
}

export function text_stats(): i32 {
  const input = inputText();
  if (input === null) return 1;
  const err: string[] = [""];
  const args = parseArgs(input, err);
  if (args === null) return fail(err[0]);
  const text = argString(args, "text", true, err);
  if (text === null) return fail(err[0]);
  const top = argNumber(args, "top", 5, err);
  if (isNaN(top)) return fail(err[0]);
  if (top < 0 || top > 50 || top != Math.trunc(top)) return fail("argument 'top' must be an integer from 0 to 50");

  const s = text;
  let chars = 0, words = 0, lines = 0, sentences = 0, paragraphs = 0, whitespace = 0;
  let inWord = false, sentencePending = false, blankRun = 0, inParagraph = false;
  const counts = new Map<string, i32>();
  const order = new Array<string>();
  let wordStart = 0;
  let i = 0;
  while (i <= s.length) {
    const cp: i32 = i < s.length ? s.codePointAt(i) : 0x0a; // a virtual final newline closes everything
    const width = cp > 0xffff ? 2 : 1;
    const atEnd = i >= s.length;
    if (!atEnd) chars++;
    if (isWordChar(cp) && !atEnd) {
      if (!inWord) { inWord = true; wordStart = i; words++; sentencePending = true; }
      inParagraph = true;
      blankRun = 0;
    } else {
      if (inWord) {
        const w = s.substring(wordStart, i).toLowerCase();
        if (counts.has(w)) counts.set(w, counts.get(w) + 1);
        else { counts.set(w, 1); order.push(w); }
        inWord = false;
      }
      if (!atEnd && (cp == 0x20 || cp == 0x09 || cp == 0x0a || cp == 0x0d || cp == 0xa0 || cp == 0x3000)) whitespace++;
      if (isSentenceEnd(cp) && sentencePending) { sentences++; sentencePending = false; }
      if (cp == 0x0a) {
        if (!atEnd || (s.length > 0 && s.charCodeAt(s.length - 1) != 0x0a)) lines++;
        blankRun++;
        if (blankRun >= 2 || atEnd) {
          if (inParagraph) paragraphs++;
          inParagraph = false;
        }
      } else if (cp != 0x20 && cp != 0x09 && cp != 0x0d && !atEnd) {
        inParagraph = true;
        blankRun = 0;
      }
    }
    i += width;
  }
  if (sentencePending) sentences++; // a last sentence without a full stop still counts

  // The `top` most frequent words, ties in order of first appearance.
  const topWords = JValue.arr();
  const used = new Set<string>();
  for (let k = 0; k < <i32>top && k < order.length; k++) {
    let best = "";
    let bestCount = 0;
    for (let j = 0; j < order.length; j++) {
      const w = order[j];
      if (used.has(w)) continue;
      const c = counts.get(w);
      if (c > bestCount) { best = w; bestCount = c; }
    }
    if (bestCount == 0) break;
    used.add(best);
    topWords.push(JValue.obj().set("word", JValue.str(best)).set("count", JValue.num(bestCount)));
  }

  const bytes = String.UTF8.byteLength(s);
  const out = JValue.obj()
    .set("bytes", JValue.num(bytes))
    .set("characters", JValue.num(chars))
    .set("characters_excluding_spaces", JValue.num(chars - whitespace))
    .set("words", JValue.num(words))
    .set("unique_words", JValue.num(order.length))
    .set("lines", JValue.num(lines))
    .set("sentences", JValue.num(sentences))
    .set("paragraphs", JValue.num(paragraphs))
    .set("reading_time_minutes", JValue.num(Math.round(<f64>words / 20.0) / 10.0))
    .set("top_words", topWords);
  outputText(out.toJson());
  return 0;
}
