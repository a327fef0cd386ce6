// What tracing costs a tools/call: `serve --http` with tracing off, with tracing on (exporting to
// a local OTLP/HTTP sink), and a build of the commit before the telemetry hooks existed, side by
// side. Off must cost nothing measurable: the hooks are one `tracer()` read each and the SDK is
// never imported. The baseline is bundled from `git archive` of the commit before host/src/telemetry
// existed (or BENCH_TRACING_BASE) into
// bench/.baseline/ (ignored by git; it resolves packages from this checkout's node_modules).
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { build } from 'esbuild';

export const title = 'Tracing: a tools/call with tracing off, on, and without the hooks (HTTP API)';

const ROOT = new URL('../../', import.meta.url).pathname;
const BASE_DIR = join(ROOT, 'bench/.baseline');

/** The parent of the commit that added host/src/telemetry: the last one without the hooks. */
function beforeTelemetry() {
  const added = execFileSync('git', ['log', '--diff-filter=A', '--format=%H', '--', 'host/src/telemetry/index.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop();
  return execFileSync('git', ['rev-parse', `${added}^`], { cwd: ROOT, encoding: 'utf8' }).trim();
}

/** Bundles the commit before the hooks into bench/.baseline; undefined when it cannot. */
function baselineMain() {
  try {
    const ref = process.env.BENCH_TRACING_BASE ?? beforeTelemetry();
    if (ref === execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim()) return undefined;
    rmSync(BASE_DIR, { recursive: true, force: true });
    mkdirSync(BASE_DIR, { recursive: true });
    execFileSync('sh', ['-c', `git archive ${ref} host scripts package.json tsconfig.json | tar -x -C "${BASE_DIR}"`], {
      cwd: ROOT,
    });
    mkdirSync(join(BASE_DIR, 'dist/cli'), { recursive: true });
    execFileSync(process.execPath, [join(BASE_DIR, 'scripts/bundle.mjs')], { cwd: BASE_DIR, stdio: 'ignore' });
    const main = join(BASE_DIR, 'dist/cli/main.js');
    return existsSync(main) ? { main, ref: ref.slice(0, 7) } : undefined;
  } catch {
    return undefined;
  }
}

function start(main, env) {
  const proc = spawn(
    process.execPath,
    [main, 'serve', '--http', '127.0.0.1:0', '--manifests', `${ROOT}manifests/conformance`, '--policies', 'none', '-q'],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        TOOLGATE_HOME: join(tmpdir(), 'toolgate-bench-home'),
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let err = '';
    proc.stderr.on('data', (d) => {
      err += d.toString();
      const m = /listening on (http:\/\/\S+)\/mcp/.exec(err);
      if (m) resolve({ proc, url: `${m[1]}/v1/tools/test_simple_text/call` });
    });
    proc.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}

/** The pipeline and the echo tool of a source tree, bundled into one module under bench/.baseline. */
async function pipelineOf(root, name, withTelemetry) {
  const lines = [
    `export { Pipeline } from '${root}/host/src/pipeline/index.ts';`,
    // builtinTools is in the tool door of both trees (echoTool left it after the baseline commit).
    `export { ToolRegistry, builtinTools } from '${root}/host/src/tool/index.ts';`,
  ];
  if (withTelemetry) lines.push(`export { startTracing, tracer } from '${root}/host/src/telemetry/index.ts';`);
  const out = join(BASE_DIR, `${name}.mjs`);
  mkdirSync(BASE_DIR, { recursive: true });
  await build({
    stdin: { contents: lines.join('\n'), resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outfile: out,
    logLevel: 'error',
    banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
  });
  const m = await import(out);
  const tools = new m.ToolRegistry();
  const echo = m.builtinTools.find((t) => t.name === 'echo');
  if (!echo) throw new Error(`${root}: the tool door's builtinTools has no echo tool`);
  tools.register(echo);
  return { m, pipeline: new m.Pipeline({ tools }) };
}

/** In one process, no network: pipeline.call of the built-in echo, before the hooks, off, and on. */
async function inProcess(ctx, sinkUrl, base) {
  const before = base ? await pipelineOf(BASE_DIR, 'micro-base', false) : undefined;
  const now = await pipelineOf(ROOT, 'micro-now', true);
  const N = ctx.count(5_000, 20);
  const ROUNDS = ctx.count(30, 1);
  const once = async (p, n) => {
    const t = performance.now();
    for (let i = 0; i < n; i++) await p.call('echo', { text: 'hi' });
    return ((performance.now() - t) * 1000) / n;
  };
  const rows = { base: [], off: [], on: [] };
  for (let r = 0; r < ROUNDS; r++) {
    if (before) rows.base.push(await once(before.pipeline, N));
    rows.off.push(await once(now.pipeline, N));
  }
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = sinkUrl;
  const stop = await now.m.startTracing({
    serviceVersion: 'bench',
    recordContent: false,
    scheduleDelayMs: 200,
    env: process.env,
  });
  const t = now.m.tracer();
  const traced = {
    call: (name, args) => t.server(`tools/call ${name}`, {}, undefined, () => now.pipeline.call(name, args)),
  };
  for (let r = 0; r < ROUNDS; r++) rows.on.push(await once(traced, N / 10));
  await stop();
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const med = (xs) => ctx.summary(xs).median;
  const off = med(rows.off);
  const row = (name, xs) =>
    `| ${name} | ${ctx.fmt(med(xs), 2)} | ${ctx.fmt(ctx.summary(xs).min, 2)} | ${ctx.fmt(med(xs) - off, 2)} |`;
  return [
    `pipeline.call of the built-in echo in this process (no transport, no sandbox), µs per call: the median and best of ${ROUNDS} rounds of ${N} calls (tracing on: ${N / 10}, each in a SERVER span as the transports make it).`,
    '',
    '| pipeline | median µs | best µs | median − off µs |',
    '|---|---|---|---|',
    ...(before ? [row('no hooks (before this change)', rows.base)] : []),
    row('tracing off', rows.off),
    row('tracing on', rows.on),
  ].join('\n');
}

async function call(dispatcher, url) {
  const res = await request(url, {
    method: 'POST',
    dispatcher,
    body: '{"arguments":{}}',
    headers: { 'content-type': 'application/json' },
  });
  const text = await res.body.text();
  if (res.statusCode !== 200 || !text.includes('simple text'))
    throw new Error(`call failed: ${res.statusCode} ${text.slice(0, 300)}`);
}

export async function run(ctx) {
  let spans = 0;
  const sink = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      spans += (body.match(/"spanId"/g) ?? []).length;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise((r) => sink.listen(0, '127.0.0.1', r));
  const sinkUrl = `http://127.0.0.1:${sink.address().port}`;
  // a smoke run checks this tree's side only: the baseline is a fixed old commit, bundled for seconds
  const base = ctx.smoke ? undefined : baselineMain();
  const main = `${ROOT}dist/cli/main.js`;
  const servers = [
    ...(base ? [{ name: `no hooks (${base.ref}, before this change)`, ...(await start(base.main, {})) }] : []),
    { name: 'tracing off (default)', ...(await start(main, {})) },
    {
      name: 'tracing on (OTLP/HTTP to a local sink)',
      ...(await start(main, { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl })),
    },
  ];
  const dispatcher = new Agent({ connections: servers.length });
  try {
    const N = ctx.count(600, 4);
    const WARM = ctx.count(100, 2);
    const times = servers.map(() => []);
    for (let i = 0; i < N + WARM; i++) {
      // rotate the order, so machine noise hits every server alike
      for (let k = 0; k < servers.length; k++) {
        const j = (i + k) % servers.length;
        const t = performance.now();
        await call(dispatcher, servers[j].url);
        if (i >= WARM) times[j].push((performance.now() - t) * 1000);
      }
    }
    const sums = times.map((xs) => ctx.summary(xs));
    const off = sums[servers.findIndex((s) => s.name.startsWith('tracing off'))];
    const row = (s, i) =>
      `| ${s.name} | ${ctx.fmt(sums[i].median, 0)} | ${ctx.fmt(sums[i].p99, 0)} | ${ctx.fmt(sums[i].median - off.median, 0)} | ${sums[i].n} |`;
    return [
      'POST /v1/tools/test_simple_text/call (a WASM tool) over one keep-alive connection per server, µs per call from request to the whole answer read; the three servers take turns.',
      '',
      '| server | median µs | p99 µs | median − off µs | calls |',
      '|---|---|---|---|---|',
      ...servers.map(row),
      '',
      base
        ? ''
        : '- no baseline column: the commit before host/src/telemetry could not be bundled (set BENCH_TRACING_BASE to a commit)',
      `- spans the sink received from the traced server: ${spans}`,
      '',
      await inProcess(ctx, sinkUrl, base),
    ]
      .filter((l, i, a) => l !== '' || a[i - 1] !== '')
      .join('\n');
  } finally {
    await dispatcher.close();
    for (const s of servers) s.proc.kill('SIGTERM');
    await new Promise((r) => sink.close(r));
    rmSync(BASE_DIR, { recursive: true, force: true }); // the baseline and the in-process bundles
  }
}
