// Canonical value -> model-facing content, by the tool's output.render.
import type { ContentBlock, Json, OutputRender } from '../tool/index.js';

/**
 * 'json': compact JSON text (models pay per token; whitespace buys them nothing).
 * 'text': a string value as is; any other value as JSON text.
 * {template}: `{{a.b.0}}` replaced by the value at that path (strings raw, others JSON, missing '').
 */
export function renderContent(value: Json, render: OutputRender): ContentBlock[] {
  if (render === 'text') return [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }];
  if (render === 'json') return [{ type: 'text', text: JSON.stringify(value) }];
  const text = render.template.replace(/\{\{\s*([^{}\s]*)\s*\}\}/g, (_, path: string) => {
    const found = lookup(value, path);
    if (found === undefined) return '';
    return typeof found === 'string' ? found : JSON.stringify(found);
  });
  return [{ type: 'text', text }];
}

function lookup(value: Json, path: string): Json | undefined {
  if (path === '' || path === '.') return value;
  let cur: Json | undefined = value;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = Array.isArray(cur) ? cur[Number(key)] : Object.hasOwn(cur, key) ? cur[key] : undefined;
  }
  return cur;
}

export function isContent(value: unknown): value is ContentBlock[] {
  return (
    Array.isArray(value) &&
    value.every((b: unknown) => {
      if (typeof b !== 'object' || b === null) return false;
      const o = b as Record<string, unknown>;
      if (o.type === 'text') return typeof o.text === 'string';
      if (o.type === 'image') return typeof o.data === 'string' && typeof o.mimeType === 'string';
      return false;
    })
  );
}

/** A copy of content that shares nothing with what a listener or tool still holds. */
export function copyContent(content: readonly ContentBlock[]): ContentBlock[] {
  return content.map((b) => (b.type === 'text' ? { type: 'text', text: b.text } : { type: 'image', data: b.data, mimeType: b.mimeType }));
}
