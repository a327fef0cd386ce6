// $TOOLGATE_HOME/toolgate.lock (JSON): what is installed, pinned by version, source, digests and
// signer. It is only ever replaced by rename, as the last step of a store transaction.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { parseJsonDocument } from './errors.js';
import { ownEntry } from './own.js';

const digest = z.string().regex(/^sha256:[0-9a-f]{64}$/);
const describedEntry = z.strictObject({ key: z.string(), digest, parts: z.record(z.string(), digest) });

const lockEntrySchema = z.strictObject({
  version: z.string(),
  /** The reference it was installed from, as the user gave it (resolved to a full path/URL). */
  source: z.string(),
  /** Digest of each package file (manifest.yaml, module.wasm, link-<n>.wasm, README.md). */
  digests: z.record(z.string(), digest),
  /** Digest of tools/<name>/manifest.yaml as the store wrote it. */
  installedManifest: digest,
  /** null = installed unsigned/untrusted with --allow-unsigned. */
  signer: z.strictObject({ keyId: z.string(), name: z.string(), signature: z.string() }).nullable(),
  /**
   * The digest of what the reference resolved to: OCI the image manifest, an HTTP index or a .tgz
   * the package archive, a folder the archive `pack` would write of it.
   */
  resolved: z.string().optional(),
  /** Digests of what the model reads of the tool, whole and part by part (model-text.ts). */
  model: z
    .strictObject({
      digest,
      parts: z.strictObject({
        name: digest,
        title: digest,
        description: digest,
        inputSchema: digest,
        outputSchema: digest,
        annotations: digest,
      }),
    })
    .optional(),
  /**
   * module.abi: hyper-mcp: digests of what the module described at install (described.ts): `digest`
   * is that of the pin file written beside the installed manifest; each tool, resource, template
   * and prompt (by served name, URI, URI template, name) whole and part by part.
   */
  described: z
    .strictObject({
      digest,
      tools: z.array(describedEntry),
      resources: z.array(describedEntry),
      resourceTemplates: z.array(describedEntry),
      prompts: z.array(describedEntry),
    })
    .optional(),
  /** A plain wasm module's manifest, supplied by the user (install --manifest). */
  manifestFile: z.string().optional(),
  /** The reference that gets these bytes again whatever tags or ranges do (`install --locked`). */
  pinned: z.string().optional(),
});
const lockSchema = z.strictObject({
  lockfileVersion: z.literal(1),
  // Names become folder names under tools/: only tool names, never a path.
  tools: z.record(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be a tool name'), lockEntrySchema),
});
export type LockEntry = z.infer<typeof lockEntrySchema>;
export type Lockfile = z.infer<typeof lockSchema>;

export function emptyLock(): Lockfile {
  return { lockfileVersion: 1, tools: {} };
}

export function parseLock(text: string, file: string): Lockfile {
  return parseJsonDocument(text, lockSchema, file, 'STORE_CORRUPT', 'lockfile');
}

export async function readLock(file: string): Promise<Lockfile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyLock();
    throw err;
  }
  return parseLock(text, file);
}

export function serializeLock(lock: Lockfile): string {
  const tools: Record<string, LockEntry> = {};
  for (const name of Object.keys(lock.tools).sort()) {
    const entry = ownEntry(lock.tools, name);
    if (entry) tools[name] = entry;
  }
  return `${JSON.stringify({ lockfileVersion: 1, tools }, null, 2)}\n`;
}
