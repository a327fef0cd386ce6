// What a start loads (issue 15.3): the bundled command keeps ajv and re2js out of the modules a
// `serve` evaluates before its first answer, and what stands in for them still works when used.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { compileLinear } from '../../host/src/regex/index.js';
import { AjvJsonSchemaValidator } from '../../host/src/server/sdk-ajv.js';
import { ROOT } from './helpers.js';

const CLI = join(ROOT, 'dist/cli');
/** Every module esbuild put in the command's files, by the path comment it writes before each. */
function bundledModules(): string[] {
  return readdirSync(CLI)
    .filter((f) => f.endsWith('.js'))
    .flatMap((f) => [...readFileSync(join(CLI, f), 'utf8').matchAll(/^\/\/ (\S+\.(?:js|ts|cjs|mjs|json))$/gm)].map((m) => m[1] as string));
}

describe('start-up', () => {
  test("the bundled command holds no copy of ajv: the SDK's eager import of its provider is replaced by the lazy one", () => {
    const modules = bundledModules();
    expect(modules).toContain('host/src/server/sdk-ajv.ts');
    expect(modules.some((m) => m.includes('@modelcontextprotocol/sdk/dist/esm/server/index.js'))).toBe(true);
    expect(modules.filter((m) => m.startsWith('node_modules/ajv/') || m.includes('/validation/ajv-provider.js'))).toEqual([]);
  });

  test('re2js is required on the first pattern, not bundled into the start', () => {
    expect(bundledModules().filter((m) => m.startsWith('node_modules/re2js/'))).toEqual([]);
    const re = compileLinear('^(a+)+$');
    expect(typeof re).not.toBe('string');
    if (typeof re !== 'string') expect([re.test('aaaa'), re.test(`${'a'.repeat(50_000)}b`)]).toEqual([true, false]);
    expect(compileLinear('(?=x)')).toMatch(/invalid or unsupported Perl syntax/);
  });

  test("the SDK's validator, loaded on first use, accepts and refuses as the SDK's own", () => {
    const check = new AjvJsonSchemaValidator().getValidator<{ name: string }>({
      type: 'object',
      properties: { name: { type: 'string', minLength: 2 } },
      required: ['name'],
    });
    expect(check({ name: 'ada' })).toEqual({ valid: true, data: { name: 'ada' }, errorMessage: undefined });
    const bad = check({ name: 'a' });
    expect(bad.valid).toBe(false);
    expect(bad.errorMessage).toMatch(/name/);
  });
});
