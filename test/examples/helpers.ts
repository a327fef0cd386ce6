// Shared helpers for the example-tool tests: they build what they need, then drive the real
// `toolgate` binary (dist/cli/main.js) as a child process, as a user or a script would.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
export const MANIFESTS = join(ROOT, 'manifests');
/** An empty policy set (see policies/none.yaml): these tests prove tools, not policies. */
export const NO_POLICIES = join(ROOT, 'test', 'examples', 'policies');
/** The binary under test. TOOLGATE_TEST_CLI may point at another entry script (same CLI contract). */
export const CLI = process.env.TOOLGATE_TEST_CLI ?? join(ROOT, 'dist', 'cli', 'main.js');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<Run> {
  return new Promise((done) => {
    execFile(
      cmd,
      args,
      {
        cwd: opts.cwd ?? ROOT,
        env: opts.env ?? process.env,
        timeout: opts.timeoutMs ?? 60_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : null;
        done({ code, stdout, stderr });
      },
    );
  });
}

/** The parsed `--json` result of one call plus the exit code. */
export interface CallResult {
  code: number | null;
  result: {
    isError: boolean;
    content: { type: string; text?: string }[];
    structuredContent?: unknown;
    error?: { code: string; message: string };
  };
  stderr: string;
}

export async function callTool(tool: string, args: unknown, manifests: string = MANIFESTS): Promise<CallResult> {
  const r = await run(process.execPath, [
    CLI,
    'call',
    tool,
    '--manifests',
    manifests,
    '--policies',
    NO_POLICIES,
    '--args',
    JSON.stringify(args),
    '--json',
  ]);
  let result: CallResult['result'];
  try {
    result = JSON.parse(r.stdout) as CallResult['result'];
  } catch {
    throw new Error(`toolgate call ${tool} printed no JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
  return { code: r.code, result, stderr: r.stderr };
}

/** The canonical value of a successful call (fails the test with the result when it is an error). */
export async function valueOf(tool: string, args: unknown, manifests?: string): Promise<Record<string, unknown>> {
  const r = await callTool(tool, args, manifests);
  if (r.code !== 0 || r.result.isError) throw new Error(`${tool} failed (exit ${r.code}): ${JSON.stringify(r.result)}`);
  return r.result.structuredContent as Record<string, unknown>;
}

export async function tempDir(prefix: string): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `toolgate-${prefix}-`));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
