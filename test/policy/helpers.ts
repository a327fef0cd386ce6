// Real plugin hosts with real policy folders in temp dirs; nothing here stands in for our code.
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createPluginHost, type PluginHost } from '../../host/src/plugin/index.js';
import {
  createPolicyServices,
  mountPolicies,
  type PolicyController,
  type PolicyServices,
} from '../../host/src/policy/index.js';
import type { ApprovalService } from '../../host/src/pipeline/index.js';
import type { Json, JsonObject, ToolDefinition, ToolResult } from '../../host/src/tool/index.js';

export interface Setup {
  host: PluginHost;
  dir: string;
  tmp: string;
  services: PolicyServices;
  policies: PolicyController;
  call(tool: string, args?: unknown, opts?: { agent?: string; signal?: AbortSignal }): Promise<ToolResult>;
  write(files: Record<string, string>): void;
  cleanup(): Promise<void>;
}

const temps: string[] = [];

export function tempDir(prefix = 'tg-policy-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
}

export function removeTemps(): void {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    const p = join(dir, name);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
}

/** A silent terminal: nobody can answer. */
export function noTty(): { input: PassThrough; output: PassThrough; isTTY: boolean } {
  return { input: new PassThrough(), output: new PassThrough(), isTTY: false };
}

export async function setup(
  files: Record<string, string>,
  tools: ToolDefinition[],
  opts: { approval?: ApprovalService; env?: NodeJS.ProcessEnv; approvalTimeoutMs?: number } = {},
): Promise<Setup> {
  const tmp = tempDir();
  const dir = join(tmp, 'policies');
  mkdirSync(dir);
  writeFiles(dir, files);
  const host = createPluginHost({
    ...(opts.approval ? { approval: opts.approval } : {}),
    ...(opts.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: opts.approvalTimeoutMs } : {}),
  });
  host.root.plugin(
    (ctx) => {
      for (const t of tools) ctx.tool(t);
    },
    undefined,
    { name: 'test-tools' },
  );
  const services = createPolicyServices({ auditPath: join(tmp, 'audit.jsonl'), env: opts.env ?? {}, tty: noTty() });
  let policies: PolicyController;
  try {
    policies = await mountPolicies(host.root, dir, { services });
  } catch (err) {
    await host.dispose();
    throw err;
  }
  return {
    host,
    dir,
    tmp,
    services,
    policies,
    call: (tool, args = {}, o = {}) => host.pipeline.call(tool, args, o),
    write: (f) => writeFiles(dir, f),
    cleanup: () => host.dispose(),
  };
}

/** A tool that echoes its arguments, with whatever else the test gives it. */
export function tool(name: string, over: Partial<ToolDefinition> = {}): ToolDefinition {
  return {
    name,
    description: `test tool ${name}`,
    inputSchema: { type: 'object' },
    allowUnknownArguments: true,
    execute: (args: Readonly<JsonObject>): Json => ({ echoed: args as JsonObject }),
    ...over,
  };
}

export function text(result: ToolResult): string {
  return result.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
