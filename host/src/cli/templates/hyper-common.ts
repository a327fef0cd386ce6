// The parts of a module.abi hyper-mcp scaffold that do not depend on the language: its manifest
// (the plugin's name and one grant; the module describes its tools), test script and README.
import type { LanguageTemplate, ScaffoldContext } from './types.js';

export function hyperManifestYaml(ctx: ScaffoldContext, t: LanguageTemplate): string {
  return `apiVersion: toolgate/v1
name: ${ctx.tool}                  # the plugin: its tools are served as ${ctx.tool}__greet and ${ctx.tool}__add
version: 0.1.0
description: >-
  Greets people and adds numbers (tools, a resource and a prompt described by the module).
  Replace this with what ${ctx.tool} is for.
module:
  path: build/${ctx.tool}.wasm   # relative to this file; add sha256 when you publish
  abi: hyper-mcp                 # the module describes its tools, resources and prompts
# One grant for everything the module serves. Least privilege: no hosts, no paths. Add
# allowed_hosts / allowed_paths / config / secrets, or mcp (logging, progress, elicitation,
# sampling, roots, notifications) for hyper-mcp's host functions, only when it needs them.
capabilities:
  memory: { max_pages: ${t.maxPages} }
  timeout_ms: 2000
`;
}

export function hyperTestScript(ctx: ScaffoldContext): string {
  const p = ctx.tool;
  return `#!/bin/sh
# Builds ${p} and checks it through toolgate: both tools, a bad call, and that its resource and
# prompt are served. Runs the installed \`toolgate\` command; set TOOLGATE to another command line
# to use that instead (e.g. TOOLGATE="node /path/to/toolgate/dist/cli/main.js" from a checkout).
set -eu
cd "$(dirname "$0")"
TOOLGATE="\${TOOLGATE:-toolgate}"
toolgate() { command $TOOLGATE "$@"; }
if ! command -v "\${TOOLGATE%% *}" >/dev/null 2>&1; then
  echo "test.sh: '\${TOOLGATE%% *}' not found: install toolgate (npm install -g) or set TOOLGATE" >&2
  exit 2
fi
make --no-print-directory
expect() { case "$2" in *"$1"*) ;; *) echo "FAIL: expected $1 in: $2" >&2; exit 1 ;; esac; }

expect '"Hello, Zoë!"' "$(toolgate call ${p}__greet --manifests . --args '{"name":"Zoë"}' --json)"
expect '"sum":5' "$(toolgate call ${p}__add --manifests . --args '{"a":2,"b":3}' --json)"

# Arguments are checked against the schema the module described, before it runs: exit status 1.
status=0
bad=$(toolgate call ${p}__add --manifests . --args '{"a":"two","b":3}' --json 2>&1) || status=$?
if [ "$status" -ne 1 ]; then
  echo "FAIL: a string for a number should be an error (exit 1), got exit $status: $bad" >&2
  exit 1
fi

served=$(toolgate inspect ${p}__greet --manifests . --json)
expect '"review"' "$served"
expect '${p}://about' "$served"
echo "ok: ${p}"
`;
}

export function hyperReadme(ctx: ScaffoldContext, t: LanguageTemplate): string {
  const p = ctx.tool;
  return `# ${p}

A hyper-mcp v2 plugin in ${t.label} for toolgate (\`module.abi: hyper-mcp\`), scaffolded by
\`toolgate new --abi hyper-mcp\`.

- \`make\` builds \`build/${p}.wasm\`. ${t.buildNote}
- \`./test.sh\` builds it and checks it through toolgate.
- \`${p}.yaml\` names the plugin and grants its capabilities; the module describes the rest.

The module exports \`list_tools\` / \`call_tool\` (tools \`greet\` and \`add\`, served as
\`${p}__greet\` and \`${p}__add\`), \`list_resources\` / \`read_resource\` (\`${p}://about\`) and
\`list_prompts\` / \`get_prompt\` (\`review\`). Each reads JSON input and sets JSON output; see
"The hyper-mcp interface" in toolgate's docs/authoring.md for the envelopes, the caps on what a
module describes, and hyper-mcp's host functions.
`;
}
