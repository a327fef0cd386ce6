// Turns zod's issues into the rule a person reads (`must be <= 65536`, `unknown key`). Schema-level
// messages (the regexes, the custom refinements) win over this map; this covers zod's built-ins.
import type { z } from 'zod';
import { formatKeyPath, type ManifestIssue } from './errors.js';

type Issue = z.core.$ZodIssue;
type RawIssue = z.core.$ZodRawIssue;

function typeOfInput(input: unknown): string {
  if (input === null) return 'null';
  // YAML's .inf, .nan and a literal past the double range (1e309) parse to these: a number zod refuses
  if (typeof input === 'number' && !Number.isFinite(input)) return String(input);
  if (Array.isArray(input)) return 'array';
  if (typeof input === 'number' && Number.isInteger(input)) return 'integer';
  return typeof input;
}

/** The per-parse error map: gives each built-in check a plain rule. */
export function ruleFor(issue: RawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return issue.expected === 'int'
        ? `must be an integer (got ${typeof issue.input === 'number' ? String(issue.input) : typeOfInput(issue.input)})`
        : typeof issue.input === 'number' && issue.expected === 'number'
          ? `must be a finite number (got ${typeOfInput(issue.input)})`
          : `must be ${issue.expected} (got ${typeOfInput(issue.input)})`;
    case 'too_big': {
      const max = String(issue.maximum);
      if (issue.origin === 'string') return `must be at most ${max} characters`;
      if (issue.origin === 'array') return `must have at most ${max} items`;
      return issue.inclusive === false ? `must be < ${max}` : `must be <= ${max}`;
    }
    case 'too_small': {
      const min = String(issue.minimum);
      if (issue.origin === 'string')
        return issue.minimum === 1 ? 'must not be empty' : `must be at least ${min} characters`;
      if (issue.origin === 'array') return `must have at least ${min} item${issue.minimum === 1 ? '' : 's'}`;
      return issue.inclusive === false ? `must be > ${min}` : `must be >= ${min}`;
    }
    case 'invalid_value':
      if (issue.input === undefined) return 'is required';
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'regex' && 'pattern' in issue && typeof issue.pattern === 'string'
        ? `must match ${issue.pattern}`
        : `must be a valid ${issue.format}`;
    case 'invalid_union':
      return 'does not match any allowed form';
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'unrecognized_keys':
      return 'unknown key';
    default:
      return 'is invalid';
  }
}

/** Flattens zod's issues into one ManifestIssue per broken rule (one per unknown key). */
export function toManifestIssues(issues: readonly Issue[]): ManifestIssue[] {
  const out: ManifestIssue[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ path: formatKeyPath([...issue.path, key]), rule: 'unknown key' });
    } else if (issue.code === 'invalid_key') {
      // A record key broke its rule: report it at the key itself.
      const inner = issue.issues[0];
      out.push({
        path: formatKeyPath(issue.path),
        rule: inner === undefined ? 'is not an allowed key' : `key ${inner.message}`,
      });
    } else if (issue.code === 'invalid_union') {
      out.push(unionIssue(issue));
    } else {
      out.push({ path: formatKeyPath(issue.path), rule: issue.message });
    }
  }
  return out;
}

// A union (render: json | text | {template}) names its nested problem when the input took the object
// form, and otherwise lists the forms it accepts.
function unionIssue(issue: z.core.$ZodIssueInvalidUnion): ManifestIssue {
  const all = issue.errors.flat();
  const nested = all.find((e) => e.path.length > 0 || e.code === 'unrecognized_keys');
  if (nested !== undefined) {
    const inner = toManifestIssues([{ ...nested, path: [...issue.path, ...nested.path] }])[0];
    if (inner !== undefined) return inner;
  }
  const forms = all.flatMap((e) => (e.code === 'invalid_value' ? e.values.map((v) => JSON.stringify(v)) : []));
  if (all.some((e) => e.code === 'invalid_type' && e.expected === 'object')) forms.push('an object');
  const rule = forms.length > 0 ? `must be one of ${forms.join(', ')}` : 'does not match any allowed form';
  return { path: formatKeyPath(issue.path), rule };
}
