// Why a manifest was refused. Every refusal names the file, the key path inside it and the rule,
// so a tool author can fix it without reading toolgate's source.
import { ERROR_CODES_BY_PART, ToolgateError, type CodeOf } from '../errors/index.js';

/** Stable codes callers (CLI, registry, tests) match on; messages are for people. */
export const MANIFEST_ERROR_CODES = ERROR_CODES_BY_PART.manifest;
export type ManifestErrorCode = CodeOf<'manifest'>;

/** One broken rule: where (key path, '' for the whole document) and what. */
export interface ManifestIssue {
  path: string;
  rule: string;
}

export class ManifestError extends ToolgateError<ManifestErrorCode> {
  readonly file: string;
  /** Key path of the first issue, e.g. `capabilities.memory.max_pages` ('' = the document). */
  readonly path: string;
  /** The rule of the first issue, e.g. `must be <= 65536`. */
  readonly rule: string;
  /** Every issue found (schema validation reports them all at once). */
  readonly issues: readonly ManifestIssue[];

  constructor(code: ManifestErrorCode, file: string, issues: ManifestIssue[]) {
    const list = issues.length > 0 ? issues : [{ path: '', rule: 'is invalid' }];
    super(code, `${file}: ${list.map(formatIssue).join('; ')}`);
    this.file = file;
    this.issues = list;
    const first = list[0] as ManifestIssue;
    this.path = first.path;
    this.rule = first.rule;
  }
}

function formatIssue(issue: ManifestIssue): string {
  return issue.path === '' ? issue.rule : `${issue.path}: ${issue.rule}`;
}

/** Renders a key path the way a person writes it in YAML: a.b[0], and quoted keys that are not words. */
export function formatKeyPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else {
      const key = String(part);
      if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) out += out === '' ? key : `.${key}`;
      else out += `[${JSON.stringify(key)}]`;
    }
  }
  return out;
}
