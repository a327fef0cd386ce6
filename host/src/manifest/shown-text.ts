// Manifest text that people read (consent, `inspect`, `list`, errors) refuses control, escape and
// bidirectional-override characters at load: a description may hold tab and newline, a name, path
// or key nothing of the kind. The printers escape whatever still reaches them.
import { shownTextProblem } from '../terminal/index.js';
import { formatKeyPath, type ManifestIssue } from './errors.js';
import type { Manifest } from './schema.js';

type Path = (string | number)[];
const DATA_KEYS = new Set(['default', 'const', 'enum', 'examples']);

function check(out: ManifestIssue[], path: Path, text: string, multiline = false): void {
  const problem = shownTextProblem(text, { multiline });
  if (problem !== undefined) out.push({ path: formatKeyPath(path), rule: problem });
}

/** A key itself (a guest path, a config name): the issue names the key by its parent's path. */
function checkKey(out: ManifestIssue[], parent: Path, key: string): void {
  const problem = shownTextProblem(key);
  if (problem !== undefined) out.push({ path: formatKeyPath([...parent, key]), rule: `key ${problem}` });
}

/** `description` and `title` anywhere in a schema or parameter tree; property names too. */
function walkSchema(out: ManifestIssue[], node: unknown, path: Path, depth: number): void {
  if (depth > 64 || node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach((item, i) => walkSchema(out, item, [...path, i], depth + 1));
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYS.has(key)) continue;
    if ((key === 'description' || key === 'title') && typeof value === 'string')
      check(out, [...path, key], value, key === 'description');
    else if (key === 'properties' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [name, sub] of Object.entries(value)) {
        checkKey(out, [...path, key], name);
        walkSchema(out, sub, [...path, key, name], depth + 1);
      }
    } else walkSchema(out, value, [...path, key], depth + 1);
  }
}

export function shownTextIssues(m: Manifest): ManifestIssue[] {
  const out: ManifestIssue[] = [];
  check(out, ['description'], m.description, true);
  check(out, ['module', 'path'], m.module.path);
  if (m.annotations?.title !== undefined) check(out, ['annotations', 'title'], m.annotations.title);
  if (m.parameters !== undefined) {
    for (const [name, spec] of Object.entries(m.parameters)) walkSchema(out, spec, ['parameters', name], 0);
  }
  walkSchema(out, m.inputSchema, ['inputSchema'], 0);
  walkSchema(out, m.output.schema, ['output', 'schema'], 0);
  const caps = m.capabilities;
  caps.allowed_hosts.forEach((h, i) => check(out, ['capabilities', 'allowed_hosts', i], h));
  for (const [guest, grant] of Object.entries(caps.allowed_paths)) {
    checkKey(out, ['capabilities', 'allowed_paths'], guest);
    check(out, ['capabilities', 'allowed_paths', guest, 'host'], grant.host);
  }
  for (const key of Object.keys(caps.config)) checkKey(out, ['capabilities', 'config'], key);
  return out;
}

/** The same checks on a schema a module described (hyper-mcp tools), issues named under `path`. */
export function schemaTextIssues(schema: unknown, path: Path): ManifestIssue[] {
  const out: ManifestIssue[] = [];
  walkSchema(out, schema, path, 0);
  return out;
}
