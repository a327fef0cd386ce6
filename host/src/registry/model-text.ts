// What the model reads of a tool (name, title, description, input and output schema, annotations)
// is pinned in the lockfile part by part, so a change can be refused and named: the description and
// schema are instructions the model follows, as binding as the capabilities (tool poisoning).
import { createHash } from 'node:crypto';
import type { ModelToolView } from '../tool/index.js';

export const MODEL_PARTS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;
export type ModelPart = (typeof MODEL_PARTS)[number];

export interface ModelPin {
  /** sha256 over every part, in MODEL_PARTS order. */
  digest: string;
  parts: Record<ModelPart, string>;
}

/**
 * JSON with object keys sorted at every depth: one text per value, whatever the key order. Not
 * digest/'s canonicalJson: here integer-like keys come first (JavaScript's own key order), as the
 * model pins already in lockfiles were spelled, so the two are kept apart (docs/decisions.md,
 * "One table per fact").
 */
export function sortedJson(value: unknown, indent?: number): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) out[k] = sort((v as Record<string, unknown>)[k]);
      return out;
    }
    return v;
  };
  return JSON.stringify(sort(value ?? null), null, indent);
}

const sha = (text: string): string => `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;

export function modelPart(view: ModelToolView, part: ModelPart): unknown {
  return view[part] ?? null;
}

export function pinModel(view: ModelToolView): ModelPin {
  const parts = {} as Record<ModelPart, string>;
  for (const part of MODEL_PARTS) parts[part] = sha(sortedJson(modelPart(view, part)));
  return { digest: sha(MODEL_PARTS.map((p) => parts[p]).join('\n')), parts };
}

/** The parts whose text differs from the pin (empty = the model sees what was pinned). */
export function modelChanges(pin: ModelPin, view: ModelToolView): ModelPart[] {
  const now = pinModel(view);
  if (now.digest === pin.digest) return [];
  return MODEL_PARTS.filter((p) => now.parts[p] !== pin.parts[p]);
}
