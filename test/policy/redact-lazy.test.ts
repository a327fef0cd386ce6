// The built-in redaction patterns compile only when a text holds a word the pattern cannot match
// without: an audit line's first redaction on a fresh server compiled all ten (RE2, ~40-100 ms)
// for a record that held none of them. Skipping must never let a secret through.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { redactText } from '../../host/src/policy/index.js';

const ROOT = join(import.meta.dirname, '../..');

/** One of each shape the built-ins know, as it would appear in a tool's output. */
const SHAPES: Array<[string, string]> = [
  ['GitHub personal token', 'ghp_abcdefghijklmnopqrstuvwxyz0123'],
  ['GitHub OAuth token', 'gho_abcdefghijklmnopqrstuvwxyz0123'],
  ['GitHub user-to-server token', 'ghu_abcdefghijklmnopqrstuvwxyz0123'],
  ['GitHub server-to-server token', 'ghs_abcdefghijklmnopqrstuvwxyz0123'],
  ['GitHub refresh token', 'ghr_abcdefghijklmnopqrstuvwxyz0123'],
  ['GitHub fine-grained token', 'github_pat_abcdefghijklmnopqrstuvwxyz_0123'],
  ['OpenAI-style key', 'sk-abcdefghijklmnop1234'],
  ['project key', 'sk-proj-abcdefghijklmnop1234'],
  ['Anthropic-style key', 'sk-ant-abcdefghijklmnop1234'],
  ['AWS access key id', 'AKIAABCDEFGHIJKLMNOP'],
  ['Slack bot token', 'xoxb-1234567890-abcdef'],
  ['Slack user token', 'xoxp-1234567890-abcdef'],
  ['JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.abcdefghijklmnop'],
  ['private key', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA==\n-----END OPENSSH PRIVATE KEY-----'],
];

describe('built-in redaction compiles its patterns on first need', () => {
  test.each(SHAPES)('%s is still redacted, alone and inside other text', (_name, secret) => {
    expect(redactText(secret)).toBe('[REDACTED]');
    expect(redactText(`{"out":"before ${secret} after"}`)).toBe('{"out":"before [REDACTED] after"}');
  });

  test('labels in any case and addresses are still redacted after a text that needed no pattern', () => {
    expect(redactText('{"echo":"hello"}')).toBe('{"echo":"hello"}');
    expect(redactText('BEARER abcdefgh1234 / Basic dXNlcjpwYXNz')).toBe('BEARER [REDACTED] / Basic [REDACTED]');
    expect(redactText('Api-Key: abcd1234 PASSWD=hunter22')).toBe('Api-Key: [REDACTED] PASSWD=[REDACTED]');
    expect(redactText('write to ann@example.org')).toBe('write to [REDACTED]');
  });

  test('each pattern reads the text as the patterns before it left it, as when all ran', () => {
    // the mark for a GitHub token holds an AWS key id, which the AWS pattern (run after it) redacts
    // again: skipping by the words of the text as first given would leave it
    expect(redactText('ghp_abcdefghijklmnopqrstuvwxyz0123', { replacement: 'x AKIAABCDEFGHIJKLMNOP' })).toBe(
      'x x AKIAABCDEFGHIJKLMNOP',
    );
    expect(redactText('token=XXXXsecretvalue', { values: ['secretvalue'], replacement: '***' })).toBe('token=***');
  });

  test('a call record holding no pattern word loads no regular-expression engine; one holding a token does', () => {
    const script = `
      import { createRequire } from 'node:module';
      const { redactText } = await import(${JSON.stringify(join(ROOT, 'dist/policy/index.js'))});
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('/re2js/'));
      const record = JSON.stringify({ v: 1, tool: 'js_echo', arguments: { mode: 'echo', text: 'hello' }, outcome: 'ok' });
      const quiet = redactText(record, { tokens: true, emails: false });
      const before = loaded();
      const noisy = redactText('key AKIAABCDEFGHIJKLMNOP', { tokens: true, emails: false });
      console.log(JSON.stringify({ same: quiet === record, before, after: loaded(), noisy }));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ same: true, before: false, after: true, noisy: 'key [REDACTED]' });
  });
});
