// Canonical value -> model-facing content, by the tool's output.render.
import { z } from 'zod';
import { contentBlockSchema, type ContentBlock, type Json, type JsonObject, type OutputRender } from '../tool/index.js';

/**
 * 'json': compact JSON text (models pay per token; whitespace buys them nothing).
 * 'text': a string value as is; any other value as JSON text.
 * {template}: `{{a.b.0}}` replaced by the value at that path (strings raw, others JSON, missing '').
 */
export function renderContent(value: Json, render: OutputRender): ContentBlock[] {
  if (render === 'text') return [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }];
  if (render === 'json') return [{ type: 'text', text: JSON.stringify(value) }];
  if (render === 'mcp') {
    const parsed = parseMcpEnvelope(value);
    return parsed.ok ? parsed.envelope.content : [{ type: 'text', text: JSON.stringify(value) }];
  }
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

/**
 * A list of content blocks, and render: mcp's envelope (the module's JSON is an MCP result: content
 * blocks, and structuredContent if any), built on their first use: a server whose tools render json
 * or text never checks a block (docs/decisions.md, "Less code and fewer schemas on serve's start").
 */
function buildEnvelopeSchemas() {
  const contentList = z.array(contentBlockSchema());
  const mcpEnvelope = z.strictObject({
    content: contentList.max(1024),
    structuredContent: z.record(z.string(), z.json()).optional(),
  });
  return { contentList, mcpEnvelope };
}
let built: ReturnType<typeof buildEnvelopeSchemas> | undefined;
const schemas = (): ReturnType<typeof buildEnvelopeSchemas> => (built ??= buildEnvelopeSchemas());

export type McpEnvelope = { content: ContentBlock[]; structuredContent?: JsonObject | undefined };

/** The envelope, or a message naming the first field that is wrong. */
export function parseMcpEnvelope(value: Json): { ok: true; envelope: McpEnvelope } | { ok: false; message: string } {
  const r = schemas().mcpEnvelope.safeParse(value);
  if (r.success) return { ok: true, envelope: r.data };
  const issue = r.error.issues[0];
  return { ok: false, message: `${issue?.path.join('.') || '(output)'}: ${issue?.message ?? 'not an MCP result'}` };
}

export function isContent(value: unknown): value is ContentBlock[] {
  return schemas().contentList.safeParse(value).success;
}

/** A copy of content that shares nothing with what a listener or tool still holds. */
export function copyContent(content: readonly ContentBlock[]): ContentBlock[] {
  return content.map((b): ContentBlock => {
    switch (b.type) {
      case 'text':
        return { type: 'text', text: b.text };
      case 'image':
      case 'audio':
        return { type: b.type, data: b.data, mimeType: b.mimeType };
      default:
        return structuredClone(b);
    }
  });
}
