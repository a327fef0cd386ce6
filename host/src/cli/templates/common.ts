// The parts of a scaffold that do not depend on the language: manifest, test script, README.
import type { LanguageTemplate, ScaffoldContext } from './types.js';

/** Quotes a string for a POSIX shell. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export function manifestYaml(ctx: ScaffoldContext, t: LanguageTemplate): string {
  return `apiVersion: toolgate/v1
name: ${ctx.tool}
version: 0.1.0
# Say when to use the tool and when not to: this text is what a model reads to decide.
description: >-
  Greets a person by name. Replace this with what ${ctx.tool} does, when an agent should use it,
  and when it should not.
module:
  path: build/${ctx.tool}.wasm   # relative to this file; add sha256 when you publish
  ${t.abi === 'component' ? "abi: component            # a component of toolgate's world (docs/authoring-ts.md)" : `entry: ${ctx.tool}`}
parameters:
  name: { type: string, required: true, description: "The name of the person to greet." }
output:
  schema:
    type: object
    properties: { greeting: { type: string } }
    required: [greeting]
  render: { template: "{{greeting}}" }
# Least privilege: no hosts, no paths. Add allowed_hosts / allowed_paths / config / secrets only
# when the tool needs them (docs/authoring.md).
capabilities:
  memory: { max_pages: ${t.maxPages} }
  timeout_ms: ${t.abi === 'component' ? 10000 : 2000}${t.abi === 'component' ? '   # a fresh instance starts the JavaScript engine first' : ''}
annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
`;
}

export function testScript(ctx: ScaffoldContext): string {
  const tool = ctx.tool;
  return `#!/bin/sh
# Builds ${tool} and calls it through toolgate: one good call and one bad one.
# Runs the installed \`toolgate\` command; set TOOLGATE to another command line to use that instead
# (e.g. TOOLGATE="node /path/to/toolgate/dist/cli/main.js" from a checkout).
set -eu
cd "$(dirname "$0")"
TOOLGATE="\${TOOLGATE:-toolgate}"
# "command" runs the program named, never this function (TOOLGATE may be plain "toolgate").
toolgate() { command $TOOLGATE "$@"; }
if ! command -v "\${TOOLGATE%% *}" >/dev/null 2>&1; then
  echo "test.sh: '\${TOOLGATE%% *}' not found: install toolgate (npm install -g) or set TOOLGATE" >&2
  exit 2
fi
make --no-print-directory

out=$(toolgate call ${tool} --manifests . --args '{"name":"Zoë"}' --json) || {
  echo "FAIL: the call failed: $out" >&2
  exit 1
}
case "$out" in
  *'"Hello, Zoë!"'*) ;;
  *) echo "FAIL: unexpected result: $out" >&2; exit 1 ;;
esac

# Bad input must come back as an error result (exit status 1), never a crash.
status=0
bad=$(toolgate call ${tool} --manifests . --args '{"name":""}' --json 2>&1) || status=$?
if [ "$status" -ne 1 ]; then
  echo "FAIL: an empty name should be an error (exit 1), got exit $status: $bad" >&2
  exit 1
fi
echo "ok: ${tool}"
`;
}

export function readme(ctx: ScaffoldContext, t: LanguageTemplate): string {
  return `# ${ctx.tool}

A toolgate tool in ${t.label}, scaffolded by \`toolgate new\`.

- \`make\` builds \`build/${ctx.tool}.wasm\`. ${t.buildNote}
- \`./test.sh\` builds it and calls it through toolgate (\`toolgate call ${ctx.tool} --manifests .\`).
- \`${ctx.tool}.yaml\` is its manifest: description, parameters, output schema and capabilities.

${t.abi === 'component' ? abiComponent : abiExtism(ctx.tool)}
`;
}

function abiExtism(tool: string): string {
  return `The wire ABI: the export \`${tool}\` gets the validated arguments as UTF-8 JSON, sets its output
to UTF-8 JSON and returns 0; on bad input it sets an error message and returns 1. See
docs/authoring.md in toolgate for config, secrets, HTTP, files and limits.`;
}

const abiComponent = `The tool's \`run\` gets the validated arguments as JSON text and returns its output as JSON text;
a throw is the call's error. It is built into a component of toolgate's world (\`lib/world.wit\`):
\`fetch\` goes through toolgate's HTTP gate, \`console.log\` to toolgate's logs. See
docs/authoring-ts.md in toolgate for the world, the globals and the limits.`;
