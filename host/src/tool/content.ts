// Every MCP content kind, once (docs/decisions.md, "MCP content and conformance"): the zod schema a
// module's or a listener's blocks are checked with, and the ContentBlock type derived from it, so a
// kind is added in one place. Binary data is base64. The schemas are built on their first use: a
// server whose tools render json or text never checks a block (docs/decisions.md, "Less code and
// fewer schemas on serve's start").
import { z } from 'zod';
import { hiddenTextProblem } from '../terminal/index.js';

/**
 * A block's uri, mimeType, name and title are one-line identifiers a client lists for a person (and
 * a model): a CR/LF there forges a "SYSTEM:" line, an escape or bidi override redraws it, an
 * invisible character hides text. Any of them makes the result INVALID_OUTPUT
 * (docs/architecture.md, "Text shown to people").
 */
const shownLine = (s: z.ZodString) =>
  s.superRefine((text, ctx) => {
    const problem = hiddenTextProblem(text);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });

function buildContentSchemas() {
  const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64');
  const mimeType = shownLine(z.string().min(1).max(255));
  const uri = shownLine(z.string().min(1).max(8192));
  const embeddedResource = z.union([
    z.object({ uri, mimeType: mimeType.optional(), text: z.string() }),
    z.object({ uri, mimeType: mimeType.optional(), blob: base64 }),
  ]);
  const contentBlock = z.discriminatedUnion('type', [
    z.object({ type: z.literal('text'), text: z.string() }),
    z.object({ type: z.literal('image'), data: base64, mimeType }),
    z.object({ type: z.literal('audio'), data: base64, mimeType }),
    z.object({ type: z.literal('resource'), resource: embeddedResource }),
    z.object({
      type: z.literal('resource_link'),
      uri,
      name: shownLine(z.string().min(1)),
      title: shownLine(z.string()).optional(),
      description: z.string().optional(),
      mimeType: mimeType.optional(),
    }),
  ]);
  return { embeddedResource, contentBlock };
}

type ContentSchemas = ReturnType<typeof buildContentSchemas>;
let built: ContentSchemas | undefined;

/** The MCP content blocks a tool may return (render: mcp) or a listener may set. Unknown keys are dropped. */
export const contentBlockSchema = (): ContentSchemas['contentBlock'] => (built ??= buildContentSchemas()).contentBlock;

export type ContentBlock = z.infer<ContentSchemas['contentBlock']>;
export type EmbeddedResource = z.infer<ContentSchemas['embeddedResource']>;

/** The kinds by name, for messages: text, image, audio, resource, resource_link. */
export const contentKinds = (): ContentBlock['type'][] => contentBlockSchema().options.map((o) => o.shape.type.value);
