// Serving no tools is almost always a matter of where serve was started or what it was given:
// it says so once, at start, naming where it looked and how to add a tool, rather than answer an
// empty tools/list in silence (issue 23.6; where manifests come from: docs/cli.md).
import { join } from 'node:path';

const HOW_TO_ADD =
  '`toolgate new NAME --lang wat` scaffolds a tool, `toolgate install REF` installs one, `--manifests PATH` names a file or folder of manifests';

/** The one stderr line for a serve with no tools, from what it was given and what it resolved. */
export function noToolsWarning(
  explicit: boolean,
  paths: readonly string[],
  cwd: string,
  installedTools: string,
): string {
  const looked = explicit
    ? `no manifest loaded from ${paths.join(', ')}`
    : `looked for manifests in ${join(cwd, 'manifests')}, in ${cwd} (YAML files with apiVersion: toolgate/v1) and among the installed tools in ${installedTools}`;
  return `toolgate serve: serving no tools: ${looked}; ${HOW_TO_ADD}\n`;
}
