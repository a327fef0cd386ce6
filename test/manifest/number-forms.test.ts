// A manifest's limits as a hostile author spells them in YAML: past the double range (1e309), .inf,
// .nan, negative, exponent, hex and octal forms, digits YAML reads as a string, and integers past
// 2^53. Every limit is a whole number inside its bound; what is refused names the key path and a
// rule a person can act on (not "must be number (got number)").
import { describe, expect, test } from 'vitest';
import { ManifestError } from '../../host/src/manifest/errors.js';
import { parseManifest } from '../../host/src/manifest/parse.js';
import { BASE, yamlOf } from './helpers.js';

/** The base manifest's YAML with `timeout_ms` and `memory.max_pages` written as given. */
function withLimits(timeout: string, pages: string): string {
  return `${yamlOf(BASE)}capabilities:\n  timeout_ms: ${timeout}\n  memory: { max_pages: ${pages} }\n`;
}

function rulesOf(text: string): string[] {
  try {
    parseManifest(text, 'm.yaml');
  } catch (err) {
    if (err instanceof ManifestError) return err.issues.map((i) => `${i.path}: ${i.rule}`);
    throw err;
  }
  return [];
}

describe('limits in the YAML number forms a hostile author may use', () => {
  test.each([
    ['1e309', 'must be a finite number (got Infinity)'],
    ['.inf', 'must be a finite number (got Infinity)'],
    ['-.inf', 'must be a finite number (got -Infinity)'],
    ['.nan', 'must be a finite number (got NaN)'],
  ])('%s is refused as not a finite number, naming the key path', (form, rule) => {
    expect(rulesOf(withLimits(form, '2'))).toEqual([`capabilities.timeout_ms: ${rule}`]);
    expect(rulesOf(withLimits('1000', form))).toEqual([`capabilities.memory.max_pages: ${rule}`]);
  });

  test.each([
    ['-1', 'must be >= 1'],
    ['-0', 'must be >= 1'],
    ['1.5e5', 'must be <= 65536'],
    ['1.5e0', 'must be an integer (got 1.5)'],
    ['2e9', 'must be <= 65536'],
    ['9007199254740993', 'must be <= 65536'],
    ['"16"', 'must be number (got string)'],
    ['1_000', 'must be number (got string)'],
  ])('max_pages: %s is refused with its bound or type', (form, rule) => {
    expect(rulesOf(withLimits('1000', form))).toContain(`capabilities.memory.max_pages: ${rule}`);
  });

  test('a whole number in exponent, hex or octal form is that number, and held to the same bound', () => {
    expect(parseManifest(withLimits('5e3', '0x10'), 'm.yaml').capabilities.timeout_ms).toBe(5000);
    expect(parseManifest(withLimits('5e3', '0x10'), 'm.yaml').capabilities.memory.max_pages).toBe(16);
    expect(parseManifest(withLimits('1000', '0o7'), 'm.yaml').capabilities.memory.max_pages).toBe(7);
    expect(rulesOf(withLimits('6e5', '0x10001'))).toEqual(['capabilities.memory.max_pages: must be <= 65536']);
    expect(rulesOf(withLimits('6.00001e5', '2'))).toEqual(['capabilities.timeout_ms: must be <= 600000']);
  });
});
