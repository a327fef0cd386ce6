// The recent-calls view reads the audit log's end: a record is as long as its call's arguments, so
// one long record must not push itself and every earlier record off the view.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { auditTail } from '../../host/src/ui/audit-tail.js';

const record = (seq: number, tool: string, args: Record<string, string>): string =>
  JSON.stringify({ level: 'info', v: 1, time: '2026-12-04T00:00:00.000Z', tool, arguments: args, outcome: 'ok', seq });

test('a record longer than the read window (2 MiB of arguments) is shown with the records before it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tg-audit-tail-'));
  try {
    const file = join(dir, 'audit.jsonl');
    const lines = [record(0, 'first', {}), record(1, 'second', {}), record(2, 'big', { blob: 'x'.repeat(2 << 20) })];
    await writeFile(file, `${lines.join('\n')}\n`);
    const recent = await auditTail(file, 50);
    expect(recent.map((r) => [r.seq, r.tool])).toEqual([
      [2, 'big'],
      [1, 'second'],
      [0, 'first'],
    ]);
    // and no more than asked for, newest first
    expect((await auditTail(file, 2)).map((r) => r.tool)).toEqual(['big', 'second']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
