// Section 05's call rows run the client and its servers on one CPU (bench/lib/pin.mjs), so where
// the scheduler wakes a fresh server cannot move a whole round's p50. These prove the pin holds
// where it is meant to, ends when the rows end, and steps aside when asked or when it cannot apply.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: the bench is plain JavaScript without types
import { callCpu, onCpu, pinnedCommand } from '../../bench/lib/pin.mjs';

const allowedOf = (statusText: string): string => /Cpus_allowed_list:\s*(\S+)/.exec(statusText)?.[1] ?? '';
const ownAllowed = (): string => allowedOf(readFileSync('/proc/self/status', 'utf8'));
const cpus = (): number[] => {
  const list = ownAllowed();
  return list.split(',').flatMap((part) => {
    const [first = '0', last = first] = part.split('-');
    const a = Number(first);
    return Array.from({ length: Number(last) - a + 1 }, (_, i) => a + i);
  });
};

describe('the call rows pin client and servers to one CPU', () => {
  it('BENCH_CALL_CPU=none leaves placement to the scheduler', () => {
    expect(callCpu({ BENCH_CALL_CPU: 'none' })).toBeUndefined();
  });

  it('a CPU this process may not use is not pinned to', () => {
    expect(callCpu({ BENCH_CALL_CPU: String(Math.max(...cpus()) + 64) })).toBeUndefined();
  });

  it('by default the last CPU this process may use is chosen', () => {
    expect(callCpu({})).toBe(Math.max(...cpus()));
  });

  it('a server started pinned runs on that CPU alone', () => {
    const cpu = callCpu({}) as number;
    const { command, args } = pinnedCommand(cpu, process.execPath, [
      '-e',
      "process.stdout.write(require('fs').readFileSync('/proc/self/status','utf8'))",
    ]);
    expect(allowedOf(execFileSync(command, args, { encoding: 'utf8' }))).toBe(String(cpu));
  });

  it('the client is pinned while the rows run and gets its CPUs back after, even when they throw', async () => {
    const before = ownAllowed();
    const cpu = callCpu({}) as number;
    const during = await onCpu(cpu, async () => ownAllowed());
    expect(during).toBe(String(cpu));
    expect(ownAllowed()).toBe(before);
    await expect(onCpu(cpu, async () => Promise.reject(new Error('row failed')))).rejects.toThrow('row failed');
    expect(ownAllowed()).toBe(before);
  });
});
