// Two builds of toolgate side by side on the first call of a fresh `serve --stdio` (spawn ->
// initialize -> tools/list -> convert_units answered, the 10 example manifests), in alternating
// starts so that a change in the machine's load lands on both alike (docs/decisions.md, issue 27).
// A build is a folder holding dist/ (copy dist/ away before changing the code, then `make build`):
//   node bench/compare-builds.mjs OLD_ROOT NEW_ROOT [starts=11] [empty|warm]
// The environment's NEW_NODE_FLAGS are given to the new build's node only (to try a V8 flag), and
// NEW_ENV (KEY=VALUE, space-separated) to the new build's environment only (TOOLGATE_START_HELPER=0|1),
// and BOTH_ENV to both builds' (TOOLGATE_START_HELPER=1 compares two builds with the helper on).
// Prints, per build, the medians of the time to the list and to the call's answer (ms from spawn)
// and of the server's CPU time by then (all threads, ms), and the load average at the end.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const MANIFESTS = fileURLToPath(new URL('../manifests', import.meta.url));
const CALL = { name: 'convert_units', arguments: { value: 1, from: 'km', to: 'mi' } };
const TIMEOUT_MS = 30_000;

const [oldRoot, newRoot, startsArg = '11', home = 'empty'] = process.argv.slice(2);
if (oldRoot === undefined || newRoot === undefined || !['empty', 'warm'].includes(home)) {
  console.error('usage: node bench/compare-builds.mjs OLD_ROOT NEW_ROOT [starts] [empty|warm]');
  process.exit(2);
}
const envOf = (text) =>
  Object.fromEntries(
    (text ?? '')
      .split(' ')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
const builds = [
  { name: 'old', main: join(resolve(oldRoot), 'dist/cli/main.js'), flags: [], env: envOf(process.env.BOTH_ENV) },
  {
    name: 'new',
    main: join(resolve(newRoot), 'dist/cli/main.js'),
    flags: (process.env.NEW_NODE_FLAGS ?? '').split(' ').filter(Boolean),
    env: { ...envOf(process.env.BOTH_ENV), ...envOf(process.env.NEW_ENV) },
  },
];

/** CPU time (user + system, all threads) of a process, in ms. */
function cpuMs(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

/** One fresh server: raw JSON-RPC lines, so the client's own work is the same for both builds. */
function firstCall(build, homeDir) {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const args = [...build.flags, build.main, 'serve', '--stdio', '--no-watch', '--manifests', MANIFESTS];
    const server = spawn(process.execPath, [...args, '--policies', 'none', '--builtin-tools'], {
      env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), TOOLGATE_HOME: homeDir, ...build.env },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const timer = setTimeout(() => {
      server.kill();
      fail(new Error(`${build.name}: no answer within ${TIMEOUT_MS} ms`));
    }, TIMEOUT_MS);
    const send = (msg) => server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
    const out = {};
    let buffered = '';
    const answer = (msg) => {
      if (msg.id === 1) {
        send({ method: 'notifications/initialized' });
        send({ id: 2, method: 'tools/list' });
      } else if (msg.id === 2) {
        out.listed = performance.now() - t0;
        out.tools = msg.result?.tools?.length ?? 0;
        send({ id: 3, method: 'tools/call', params: CALL });
      } else if (msg.id === 3) {
        out.called = performance.now() - t0;
        out.cpu = cpuMs(server.pid);
        out.failed = msg.result?.isError !== false;
        server.stdin.end();
      }
    };
    server.stdout.on('data', (chunk) => {
      buffered += chunk;
      for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
        answer(JSON.parse(buffered.slice(0, at)));
        buffered = buffered.slice(at + 1);
      }
    });
    server.on('error', fail);
    server.on('exit', () => {
      clearTimeout(timer);
      if (out.called === undefined || out.failed || out.tools < 10)
        fail(new Error(`${build.name}: ${JSON.stringify(out)}`));
      else done(out);
    });
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'compare-builds', version: '1' } },
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const scratch = mkdtempSync(join(tmpdir(), 'toolgate-compare-'));
try {
  const warmHomes = new Map();
  for (const b of builds) {
    if (home !== 'warm') continue;
    warmHomes.set(b.name, mkdtempSync(join(scratch, `warm-${b.name}-`)));
    await firstCall(b, warmHomes.get(b.name));
  }
  const results = new Map(builds.map((b) => [b.name, []]));
  for (let i = 0; i < Number(startsArg); i++) {
    // old first in even rounds, new first in odd ones
    for (const b of i % 2 === 0 ? builds : [...builds].reverse()) {
      const dir = warmHomes.get(b.name) ?? mkdtempSync(join(scratch, 'empty-'));
      results.get(b.name).push(await firstCall(b, dir));
      if (!warmHomes.has(b.name)) rmSync(dir, { recursive: true, force: true });
    }
  }
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  for (const b of builds) {
    const r = results.get(b.name);
    const m = (key) => Math.round(median(r.map((x) => x[key])));
    console.log(
      `${home} home, ${b.name}${b.flags.length > 0 ? ` (${b.flags.join(' ')})` : ''}: list ${m('listed')} ms, call ${m('called')} ms, CPU ${m('cpu')} ms (${r.map((x) => x.cpu).join(' ')})`,
    );
  }
  console.log(`${startsArg} starts each, load ${load}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
