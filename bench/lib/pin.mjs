// One CPU for a client and the servers it calls, for the call rows of section 05. On this 2-core
// VM, whether the scheduler wakes a server on the client's core or on the other one moves a stdio
// round trip by 25 µs (toolgate) to 50-100 µs (the unsandboxed server), and the choice holds for a
// fresh server's whole round: an odd round was a placement, not the code (docs/decisions.md,
// "The per-call ratio's spread"). Pinned, every round and every side measures the same path.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const TASKSET = '/usr/bin/taskset';

/**
 * The CPU the call rows run on: BENCH_CALL_CPU (a number), 'none' to leave placement to the
 * scheduler, and the last CPU by default; undefined where taskset is missing or the CPU is not ours.
 */
export function callCpu(env = process.env) {
  const asked = env.BENCH_CALL_CPU ?? 'last';
  if (asked === 'none' || !existsSync(TASKSET)) return undefined;
  const mine = allowedCpus(process.pid);
  const cpu = asked === 'last' ? mine.at(-1) : Number(asked);
  return mine.includes(cpu) ? cpu : undefined;
}

/** The CPUs a process may run on, from its Cpus_allowed_list. */
function allowedCpus(pid) {
  const line = execFileSync(TASKSET, ['-c', '-p', String(pid)], { encoding: 'utf8' });
  const list = line.split(':').at(-1).trim();
  return list.split(',').flatMap((part) => {
    const [a, b = a] = part.split('-').map(Number);
    return Array.from({ length: b - a + 1 }, (_, i) => a + i);
  });
}

/** Runs `fn` with every thread of this process on `cpu`, then gives the threads their CPUs back. */
export async function onCpu(cpu, fn) {
  if (cpu === undefined) return fn();
  const before = allowedCpus(process.pid).join(',');
  execFileSync(TASKSET, ['-a', '-c', '-p', String(cpu), String(process.pid)], { stdio: 'ignore' });
  try {
    return await fn();
  } finally {
    execFileSync(TASKSET, ['-a', '-c', '-p', before, String(process.pid)], { stdio: 'ignore' });
  }
}

/** A server's command and arguments, started on `cpu` when one is given. */
export function pinnedCommand(cpu, command, args) {
  return cpu === undefined ? { command, args } : { command: TASKSET, args: ['-c', String(cpu), command, ...args] };
}
