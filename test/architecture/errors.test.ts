// One error type (issue 17.1): every error class of host/src is a ToolgateError whose code comes
// from the one union in host/src/errors, and anything thrown becomes a message one way (messageOf).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AnsweredElsewhere, ClientGone } from '../../host/src/approval/index.js';
import { ERROR_CODES_BY_PART, isToolgateErrorCode, messageOf, ToolgateError } from '../../host/src/errors/index.js';
import { ListenerError } from '../../host/src/pipeline/async.js';
import { FileRuleError, ManifestError } from '../../host/src/manifest/index.js';
import { PluginError } from '../../host/src/plugin/index.js';
import { PolicyConfigError } from '../../host/src/policy/index.js';
import { RegistryError } from '../../host/src/registry/index.js';
import { SandboxLoadError } from '../../host/src/sandbox/index.js';
import { ResponseTooLarge } from '../../host/src/sandbox/http/read-capped.js';
import { MoveToWorker } from '../../host/src/sandbox/in-thread.js';
import { AbiBreach } from '../../host/src/sandbox/worker/component-runner.js';
import { UnknownInstruction } from '../../host/src/sandbox/module/refusals.js';
import { WasiError, WasiExit } from '../../host/src/sandbox/wasi/errors.js';
import { InsecureBindError, RpcError, ServerClosingError } from '../../host/src/server/index.js';
import { BodyTooLargeError } from '../../host/src/server/http-guard.js';
import { ToolDefinitionError, ToolFailure } from '../../host/src/tool/index.js';
import { UsageError } from '../../host/src/cli/index.js';
import { StateUnavailable } from '../../host/src/shared-state/index.js';
import { SRC } from './imports.js';

/** One instance of every error class toolgate has (a new class must be added here). */
const SAMPLES: Record<string, () => Error> = {
  ToolFailure: () => new ToolFailure('TIMEOUT', 'the call did not finish'),
  ToolDefinitionError: () => new ToolDefinitionError('t', 'input', 'must be an object'),
  SandboxLoadError: () => new SandboxLoadError('BAD_MODULE', 'tool "t": not a module'),
  ResponseTooLarge: () => new ResponseTooLarge(10),
  UnknownInstruction: () => new UnknownInstruction('unknown instruction 0xff'),
  MoveToWorker: () => new MoveToWorker('the call used up its time slice'),
  AbiBreach: () => new AbiBreach('a string runs past memory'),
  WasiExit: () => new WasiExit(3),
  WasiError: () => new WasiError(8),
  ManifestError: () => new ManifestError('INVALID_MANIFEST', 'tool.yaml', [{ path: 'name', rule: 'is required' }]),
  FileRuleError: () => new FileRuleError('MODULE_MISSING', 'x.wasm does not exist'),
  ListenerError: () => new ListenerError('guard "g" threw'),
  PluginError: () => new PluginError('p', new Error('boom')),
  PolicyConfigError: () => new PolicyConfigError('set.yaml', 'entries[0]: bad'),
  RegistryError: () => new RegistryError('NOT_FOUND', 'no such tool'),
  InsecureBindError: () => new InsecureBindError('0.0.0.0'),
  BodyTooLargeError: () => new BodyTooLargeError(5),
  ServerClosingError: () => new ServerClosingError(),
  RpcError: () => new RpcError(-32602, 'Unknown tool: x'),
  UsageError: () => new UsageError('unknown option --x'),
  StateUnavailable: () => new StateUnavailable('shared state redis://127.0.0.1:6379 is unavailable'),
  AnsweredElsewhere: () => new AnsweredElsewhere('rejected', 'the terminal'),
  ClientGone: () => new ClientGone('its stdin closed'),
};

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/** The inline spelling messageOf replaces. */
const INLINE = /instanceof\s+Error\s*\?\s*[\w.]+\.message\s*:\s*String\(/;

const sources = [...sourceFiles(SRC)].map((path) => ({ file: relative(SRC, path), text: readFileSync(path, 'utf8') }));

/** Every class of host/src with the class it extends, read from the source. */
const bases = new Map<string, string>();
for (const { text } of sources) {
  for (const m of text.matchAll(/\bclass\s+(\w+)(?:<[^{]*?>)?\s+extends\s+([\w.]+)/g)) bases.set(m[1]!, m[2]!);
}

/** The classes whose chain of bases reaches Error (directly or through another class of host/src). */
function errorClasses(): string[] {
  const reachesError = (name: string, seen = new Set<string>()): boolean => {
    const base = bases.get(name);
    if (base === undefined || seen.has(name)) return false;
    if (/^(Error|TypeError|RangeError|SyntaxError)$/.test(base)) return true;
    seen.add(name);
    return reachesError(base, seen);
  };
  return [...bases.keys()].filter((n) => reachesError(n)).sort();
}

describe('every error toolgate throws carries a code from the one union', () => {
  it('only ToolgateError extends Error itself; every other error class extends it', () => {
    const direct = [...bases]
      .filter(([, base]) => /^(Error|TypeError|RangeError|SyntaxError)$/.test(base))
      .map(([name]) => name);
    expect(direct).toEqual(['ToolgateError']);
  });

  it('the samples cover every error class of host/src (the checker finds them all)', () => {
    const found = errorClasses().filter((n) => n !== 'ToolgateError');
    expect(found.length).toBeGreaterThanOrEqual(20);
    expect(found).toEqual(Object.keys(SAMPLES).sort());
  });

  for (const [name, make] of Object.entries(SAMPLES)) {
    it(`${name} is a ToolgateError whose code is in the union`, () => {
      const err = make();
      expect(err).toBeInstanceOf(ToolgateError);
      const code = (err as ToolgateError).code;
      expect(isToolgateErrorCode(code), `${name}.code ${String(code)}`).toBe(true);
      expect(err.name).toBe(name);
      expect(err.message).not.toBe('');
    });
  }

  it('a code outside the table is not in the union', () => {
    expect(isToolgateErrorCode('ENOENT')).toBe(false);
    expect(isToolgateErrorCode(-32602)).toBe(false);
    expect(isToolgateErrorCode(ERROR_CODES_BY_PART.registry[0])).toBe(true);
  });

  it('a wrapping error keeps what it wraps as its cause', () => {
    const inner = new Error('boom');
    const err = new PluginError('p', inner);
    expect(err.cause).toBe(inner);
    expect(err.message).toBe('plugin "p" failed to apply: boom');
  });
});

describe('anything thrown becomes a message one way (messageOf)', () => {
  it('messageOf reads an Error, a string and a value whose String() throws', () => {
    expect(messageOf(new RegistryError('NOT_FOUND', 'gone'))).toBe('gone');
    expect(messageOf('plain')).toBe('plain');
    expect(
      messageOf({
        toString: () => {
          throw new Error('hostile');
        },
      }),
    ).toBe('unprintable error');
  });

  it('no host file writes `err instanceof Error ? err.message : String(err)` or a helper that does', () => {
    const helper =
      /function\s+\w+\(\s*\w+\s*:\s*unknown\s*\)\s*:\s*string\s*\{\s*return\s+\w+\s+instanceof\s+Error\s*\?/;
    const offenders = sources
      .filter(({ file, text }) => file !== 'errors/index.ts' && (INLINE.test(text) || helper.test(text)))
      .map((s) => s.file);
    expect(offenders).toEqual([]);
  });

  it('the pattern check recognises the pattern it forbids', () => {
    expect(INLINE.test('const m = err instanceof Error ? err.message : String(err);')).toBe(true);
    expect(INLINE.test('const m = messageOf(err);')).toBe(false);
  });
});
