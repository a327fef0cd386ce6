// An ask nobody can answer is denied at once (docs/mcp.md); the denial says, in one line, the ways
// a person could have answered it (issue 23.6), so a new user is not left at "no approval channel".
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MANIFESTS, removeDir, requireBuilt, tempDir, tg } from './helpers.js';

let dir = '';
beforeAll(() => {
  requireBuilt();
  dir = tempDir('ask-unanswerable');
  mkdirSync(join(dir, 'pol'));
  // The queue answers only while `serve --http` runs: a one-shot `call` has nobody to ask.
  writeFileSync(
    join(dir, 'pol', '10.yaml'),
    [
      'entries:',
      '  - { id: approvals, use: approvals, with: { channels: [queue] } }',
      '  - { id: ask-greet, use: ask, with: { tools: [greet] } }',
      '',
    ].join('\n'),
  );
});
afterAll(() => removeDir(dir));

describe('an ask with no approval channel', () => {
  test('a denied ask with nobody to answer says the ways to answer, in one line', async () => {
    const r = await tg(
      [
        'call',
        'greet',
        '--args',
        '{"name":"Ada"}',
        '--policies',
        'pol',
        '--manifests',
        join(MANIFESTS, 'greet.yaml'),
        '--json',
      ],
      {
        cwd: dir,
        env: { TOOLGATE_HOME: join(dir, 'home') },
      },
    );
    expect(r.code).toBe(1);
    const result = JSON.parse(r.stdout) as { error: { code: string; message: string } };
    expect(result.error.code).toBe('APPROVAL_DENIED');
    const message = result.error.message;
    expect(message).toMatch(/^no approval channel available \(tool "greet" needs approval/);
    expect(message).not.toContain('\n');
    expect(message).toMatch(/terminal/);
    expect(message).toMatch(/serve --http/);
    expect(message).toContain('/ui');
    expect(message).toMatch(/approvals entry/);
    expect(message).toMatch(/--policy-set dev/);
  });
});
