// summarise: fetches a page from an allowed host and says what it holds: its title, its size in
// words and its first sentence. A toolgate tool in TypeScript (docs/authoring-ts.md).
interface Args {
  url: string;
}

function titleOf(html: string): string {
  const m = /<title[^>]*>([^<]*)<\/title>/i.exec(html);
  return m ? m[1].trim() : '';
}

function textOf(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

export async function run(input: string): Promise<string> {
  const args = JSON.parse(input) as Args;
  const res = await fetch(args.url);
  if (!res.ok) throw new Error(`${args.url} answered ${res.status}`);
  const html = await res.text();
  const text = textOf(html);
  const words = text === '' ? 0 : text.split(' ').length;
  const first = /^[^.!?]*[.!?]?/.exec(text)?.[0] ?? '';
  console.log(`summarised ${args.url}: ${words} words`);
  return JSON.stringify({ title: titleOf(html), words, first_sentence: first.slice(0, 200) });
}
