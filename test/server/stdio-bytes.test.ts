// Every byte a stdio client sends is read, and every byte of every answer reaches it, whatever the
// reads and writes split. The server writes a message with one write(2) while nothing is queued,
// and queues the rest behind the stream when the pipe is full (docs/decisions.md, "Server CPU per
// call, eighth round"); it decodes its input as one UTF-8 stream, not read by read.
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { tempDir, toolgateEntry, waitFor } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A text of about `bytes` UTF-8 bytes, unique to `n`, with two- three- and four-byte characters. */
function bigText(n: number, bytes: number): string {
  const unit = `${n}:a\u00e9\u20ac\u{1F600}z;`;
  return unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)));
}

async function startServer() {
  const manifests = await tempDir();
  const entry = await toolgateEntry();
  const proc = spawn(
    process.execPath,
    [entry, 'serve', '--stdio', '--no-watch', '--manifests', manifests.path, '--policies', 'none', '--builtin-tools'],
    {
      env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), TOOLGATE_HOME: join(manifests.path, 'home') },
      stdio: ['pipe', 'pipe', 'ignore'],
    },
  );
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  cleanups.push(async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await exited;
    await manifests.remove();
  });
  let out = '';
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (d: string) => (out += d));
  const send = (m: unknown) => proc.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...(m as object) })}\n`);
  const lines = () => out.split('\n').slice(0, -1);
  return { proc, send, lines };
}

async function initialized(s: Awaited<ReturnType<typeof startServer>>): Promise<void> {
  s.send({
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bytes', version: '1' } },
  });
  await waitFor('the initialize answer', () => (s.lines().length === 1 ? true : undefined), 20_000);
  s.send({ method: 'notifications/initialized' });
}

test('a character whose UTF-8 bytes arrive in two reads is read whole', async () => {
  const s = await startServer();
  await initialized(s);
  const text = 'split \u{1F600} here';
  const line = Buffer.from(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text } } })}\n`,
  );
  const at = line.indexOf(Buffer.from('\u{1F600}')) + 2;
  s.proc.stdin.write(line.subarray(0, at));
  // the first half is read on its own before the rest arrives
  await new Promise((r) => setTimeout(r, 300));
  s.proc.stdin.write(line.subarray(at));
  await waitFor('the answer', () => (s.lines().length === 2 ? true : undefined), 20_000);
  const answer = JSON.parse(s.lines()[1] as string) as { result: { structuredContent: unknown } };
  expect(answer.result.structuredContent).toEqual({ text });
});

test('answers written while the client does not read reach it whole and once each, none lost or cut', async () => {
  const s = await startServer();
  await initialized(s);
  // the reader stops: the kernel's buffer (~200 KiB) fills after a few of these ~130 KiB answers
  s.proc.stdout.pause();
  const CALLS = 40;
  const texts = Array.from({ length: CALLS }, (_, i) => bigText(i + 1, 64 * 1024));
  for (let i = 0; i < CALLS; i++)
    s.send({ id: i + 1, method: 'tools/call', params: { name: 'echo', arguments: { text: texts[i] } } });
  await new Promise((r) => setTimeout(r, 1500));
  s.proc.stdout.resume();
  s.send({ id: CALLS + 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'after' } } });
  await waitFor('every answer', () => (s.lines().length >= CALLS + 2 ? true : undefined), 30_000);
  expect(s.lines()).toHaveLength(CALLS + 2);
  const answers = s.lines().map((l) => JSON.parse(l) as { id: number; result: { structuredContent: unknown } });
  expect(answers.map((a) => a.id).sort((a, b) => a - b)).toEqual(Array.from({ length: CALLS + 2 }, (_, i) => i));
  // compared as a count of mismatches: a diff of 40 texts of 64 KiB is no use to read
  const wrong = answers.filter(
    (a) =>
      a.id !== 0 &&
      (a.result.structuredContent as { text?: unknown }).text !== (a.id === CALLS + 1 ? 'after' : texts[a.id - 1]),
  );
  expect(wrong.map((a) => a.id)).toEqual([]);
}, 60_000);
