// YAML text -> validated Manifest. Pure: touches no files, so the registry can check a manifest
// before anything is installed.
import { checkedTool } from './definition.js';
import { ManifestError } from './errors.js';
import { patternIssues } from './patterns.js';
import { ruleFor, toManifestIssues } from './rules.js';
import { shownTextIssues } from './shown-text.js';
import { manifestSchema, type Manifest } from './schema.js';
import { messageOf } from '../errors/index.js';
import { yaml } from '../lazy-yaml/index.js';

/** Manifests are small; a huge one is a mistake or an attack on the parser. */
export const MAX_MANIFEST_BYTES = 256 * 1024;

/** Parses and validates one manifest. `file` is only used to name the source in errors. */
export function parseManifest(text: string, file: string): Manifest {
  if (Buffer.byteLength(text, 'utf8') > MAX_MANIFEST_BYTES)
    throw new ManifestError('INVALID_MANIFEST', file, [
      { path: '', rule: `must be at most ${MAX_MANIFEST_BYTES} bytes` },
    ]);
  const doc = yaml().parseDocument(text, { prettyErrors: true, uniqueKeys: true, strict: true });
  if (doc.errors.length > 0) {
    throw new ManifestError(
      'YAML_SYNTAX',
      file,
      doc.errors.map((e) => {
        const pos = e.linePos?.[0];
        const where = pos === undefined ? '' : `line ${pos.line}, column ${pos.col}: `;
        return { path: '', rule: `YAML syntax error at ${where}${firstLine(e.message)}` };
      }),
    );
  }
  let data: unknown;
  try {
    // maxAliasCount stops "billion laughs" alias expansion.
    data = doc.toJS({ maxAliasCount: 50 });
  } catch (err) {
    throw new ManifestError('YAML_SYNTAX', file, [{ path: '', rule: `YAML error: ${messageOf(err)}` }]);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new ManifestError('INVALID_MANIFEST', file, [
      { path: '', rule: 'must be a YAML mapping (key: value) at the top level' },
    ]);
  const result = manifestSchema().safeParse(data, { error: ruleFor });
  if (!result.success) throw new ManifestError('INVALID_MANIFEST', file, toManifestIssues(result.error.issues));
  const badText = [...shownTextIssues(result.data), ...patternIssues(result.data)];
  if (badText.length > 0) throw new ManifestError('INVALID_MANIFEST', file, badText);
  checkedTool(result.data, file);
  return result.data;
}

// yaml's messages carry a code excerpt after the first line; the position is already given.
function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
}
