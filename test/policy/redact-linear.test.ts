// The built-in redaction patterns scan a tool's output, so they get hostile input. On V8's engine
// these inputs took seconds to minutes (64 KiB of "a." was ~10 s for the email pattern); on RE2
// each is one linear pass, well inside vitest's 5 s per-test default, and what follows the hostile
// part is still redacted.
import { describe, expect, test } from 'vitest';
import { redactText } from '../../host/src/policy/index.js';

const KIB = 1024;
const rep = (unit: string, bytes: number): string => unit.repeat(Math.ceil(bytes / unit.length));
// A real key before the hostile part (so no later END closes a hostile header), secrets after it.
const KEY = '-----BEGIN EC PRIVATE KEY-----\nMIIkey\n-----END EC PRIVATE KEY-----\n';
const SECRETS = ' joe@example.com token=hunter2hunter2 ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';

const HOSTILE: Array<[string, string]> = [
  ['email local parts that never reach an @ ("a." x 128 KiB, then an @)', `${rep('a.', 128 * KIB)}@`],
  ['dashes and letters before a lone @', `${rep('a-', 128 * KIB)}@x`],
  ['JWT-looking runs with no second part', rep('eyJaaaaaaaaa.', 256 * KIB)],
  ['private-key headers with no END', rep('-----BEGIN RSA PRIVATE KEY-----\n', 512 * KIB)],
  ['sk- prefixes back to back', rep('sk-', 256 * KIB)],
  ['labels with nothing after them', rep('token : "', 256 * KIB)],
  ['Bearer followed by runs of spaces', rep(`Bearer ${' '.repeat(200)}`, 256 * KIB)],
];

describe('built-in redaction runs in linear time on hostile output', () => {
  test.each(HOSTILE)('%s: redacted in one pass, secrets after it still removed', (_name, hostile) => {
    const out = redactText(`${KEY}${hostile}${SECRETS}`);
    expect(out).not.toContain('joe@example.com');
    expect(out).not.toContain('hunter2');
    expect(out).not.toContain('ghp_aaaa');
    expect(out).not.toContain('MIIkey');
    expect(out.startsWith('[REDACTED]\n')).toBe(true);
    expect(out.endsWith(' [REDACTED] token=[REDACTED] [REDACTED]')).toBe(true);
  });

  test('the patterns keep their meaning: labels stay, a lone header stays, case does not hide a label', () => {
    expect(redactText('Authorization: Bearer abcdefgh12345 and bearer zyxwvuts9876')).toBe(
      'Authorization: Bearer [REDACTED] and bearer [REDACTED]',
    );
    expect(redactText('API_KEY="sk-live-value" Password: hunter22')).toBe('API_KEY="[REDACTED]" Password: [REDACTED]');
    expect(redactText('-----BEGIN RSA PRIVATE KEY----- alone')).toBe('-----BEGIN RSA PRIVATE KEY----- alone');
    expect(redactText('mail a@b.io', { emails: false })).toBe('mail a@b.io');
    expect(redactText('AKIAABCDEFGHIJKLMNOP', { tokens: false })).toBe('AKIAABCDEFGHIJKLMNOP');
    expect(redactText('AKIAABCDEFGHIJKLMNOP')).toBe('[REDACTED]');
  });
});
