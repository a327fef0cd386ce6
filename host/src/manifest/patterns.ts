// Regular expressions in a manifest's schemas (`pattern`, `patternProperties`) run on RE2, in
// linear time (architecture.md §6); one RE2 cannot compile is refused at load, naming where it is.
import { linearRegexProblem } from '../regex/index.js';
import { formatKeyPath as formatPath, type ManifestIssue } from './errors.js';
import type { Manifest } from './schema.js';

/** Keys whose values are data, not schemas: a "pattern" inside them is not a regex. */
const DATA_KEYS = new Set(['default', 'const', 'enum', 'examples']);

function walk(node: unknown, path: (string | number)[], out: ManifestIssue[], depth: number): void {
  if (depth > 64 || node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    node.forEach((item, i) => walk(item, [...path, i], out, depth + 1));
    return;
  }
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYS.has(key)) continue;
    if (key === 'pattern' && typeof value === 'string') {
      const problem = linearRegexProblem(value);
      if (problem !== undefined) out.push({ path: formatPath([...path, key]), rule: problem });
      continue;
    }
    if (key === 'patternProperties' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [source, sub] of Object.entries(value)) {
        const problem = linearRegexProblem(source);
        if (problem !== undefined) out.push({ path: formatPath([...path, key, source]), rule: problem });
        walk(sub, [...path, key, source], out, depth + 1);
      }
      continue;
    }
    walk(value, [...path, key], out, depth + 1);
  }
}

/** Every schema regex of the manifest that RE2 refuses, with its key path. */
export function patternIssues(m: Manifest): ManifestIssue[] {
  const out: ManifestIssue[] = [];
  walk(m.parameters, ['parameters'], out, 0);
  walk(m.inputSchema, ['inputSchema'], out, 0);
  walk(m.output.schema, ['output', 'schema'], out, 0);
  return out;
}
