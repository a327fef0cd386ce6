// YAML text -> validated Manifest. Pure: touches no files, so the registry can check a manifest
// before anything is installed.
import { checkedTool } from './definition.js';
import { ManifestError } from './errors.js';
import { patternIssues } from './patterns.js';
import { ruleFor, toManifestIssues } from './rules.js';
import { shownTextIssues } from './shown-text.js';
import { manifestSchema, type Manifest } from './schema.js';
import { MAX_MANIFEST_BYTES, readYaml } from '../lazy-yaml/index.js';

export { MAX_MANIFEST_BYTES };

/**
 * Parses and validates one manifest. `file` is only used to name the source in errors. `read`, when
 * given, is this very text as YAML gave it on serve's start-up helper's thread (cli/prep-worker.ts,
 * the same readYaml): only the YAML step is taken from it; every check below runs here.
 */
export function parseManifest(text: string, file: string, read?: { data: unknown }): Manifest {
  if (Buffer.byteLength(text, 'utf8') > MAX_MANIFEST_BYTES)
    throw new ManifestError('INVALID_MANIFEST', file, [
      { path: '', rule: `must be at most ${MAX_MANIFEST_BYTES} bytes` },
    ]);
  return validateManifest(read === undefined ? yamlData(text, file) : read.data, file);
}

/** The YAML step of parseManifest: the text as data, or YAML_SYNTAX naming `file`. */
function yamlData(text: string, file: string): unknown {
  const read = readYaml(text);
  if ('problems' in read) {
    throw new ManifestError(
      'YAML_SYNTAX',
      file,
      read.problems.map((p) => {
        if (!read.composed) return { path: '', rule: `YAML error: ${p.message}` };
        const where = p.line === undefined ? '' : `line ${p.line}, column ${p.col}: `;
        return { path: '', rule: `YAML syntax error at ${where}${firstLine(p.message)}` };
      }),
    );
  }
  return read.data;
}

/** The validation step of parseManifest: `data` checked against every rule; errors name `file`. */
function validateManifest(data: unknown, file: string): Manifest {
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
