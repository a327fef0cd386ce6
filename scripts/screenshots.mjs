// `make screenshots`: the three views of the /ui page, in Debian's headless chromium, written to
// docs/ui-pending.png, docs/ui-recent.png, docs/ui-tools.png (and docs/ui-narrow.png, a phone-wide
// pending view). A real `serve --http` over the example tools, with a few calls answered on the
// page and two left waiting. It runs as a new user would, in a neutral home folder made for the
// run (HOME is a temporary folder; manifests in ~/manifests, the shipped default set plus one rule
// in ~/.toolgate/policies), so the pictures show `~/...` and no path of this machine; the script
// fails if the page shows the checkout's or the temporary folder's path anyway.
import { spawn } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = resolve(process.argv[2] ?? join(ROOT, 'docs'));
const home = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-screenshots-')));
// The example manifests and what they point at (../pdk-examples/<lang>/build/*.wasm, the sample
// documents grep_files mounts), copied so that every path stays inside the neutral home.
mkdirSync(join(home, 'manifests'));
for (const f of readdirSync(join(ROOT, 'manifests')).filter((n) => n.endsWith('.yaml')))
  cpSync(join(ROOT, 'manifests', f), join(home, 'manifests', f));
cpSync(join(ROOT, 'pdk-examples'), join(home, 'pdk-examples'), {
  recursive: true,
  filter: (src) =>
    !/node_modules|\/target(\/|$)/.test(src) && (!/\.[a-z0-9]+$/i.test(src) || /(\.wasm|sample-docs\/.*)$/.test(src)),
});
const policies = join(home, '.toolgate', 'policies');
mkdirSync(policies, { recursive: true });
cpSync(join(ROOT, 'policies', 'default', 'default.yaml'), join(policies, '10-default.yaml'));
writeFileSync(
  join(policies, '20-customer-data.yaml'),
  [
    'entries:',
    '  - { id: ask-json, use: ask, with: { tools: [json_query], reason: "documents may hold customer data" } }',
    '',
  ].join('\n'),
);

const server = spawn(process.execPath, [join(ROOT, 'dist/cli/main.js'), 'serve', '--http', '127.0.0.1:0'], {
  cwd: home,
  env: { PATH: process.env.PATH ?? '', HOME: home, LANG: 'C.UTF-8' },
  stdio: ['ignore', 'ignore', 'pipe'],
});
let stderr = '';
const url = await new Promise((ok, fail) => {
  const timer = setTimeout(() => fail(new Error(`serve did not start: ${stderr}`)), 30_000);
  server.stderr.on('data', (d) => {
    stderr += d.toString();
    const m = /listening on (http:\/\/\S+)\/mcp/.exec(stderr);
    if (m) {
      clearTimeout(timer);
      ok(m[1]);
    }
  });
  server.once('exit', (code) => fail(new Error(`serve exited ${code}: ${stderr}`)));
});
const secret = readFileSync(join(home, '.toolgate', 'approval-secret'), 'utf8').trim();
const call = (name, args) =>
  fetch(`${url}/v1/tools/${name}/call`, { method: 'POST', body: JSON.stringify({ arguments: args }) }).then((r) =>
    r.json(),
  );

/** Refuses to write a picture that shows where this machine keeps things. */
async function noLocalPaths(page, view) {
  const text = await page.evaluate(() => document.body.innerText);
  for (const p of [ROOT, home, tmpdir()]) {
    if (text.includes(p)) throw new Error(`the ${view} view shows the local path ${p}; not writing it`);
  }
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
});
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  await page.goto(`${url}/ui`);
  await page.getByLabel('Approver credential').fill(secret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('Live: updates arrive as they happen.').waitFor();

  await call('greet', { name: 'Ada' });
  await call('hash', { text: 'hello', algorithm: 'sha256' });
  // Answered on the page: one allowed once, one denied.
  const allowed = call('json_query', { json: '{"plan":"team","seats":12}', path: '.seats' });
  await page.locator('li.card.pending[data-tool="json_query"]').getByRole('button', { name: 'Allow once' }).click();
  await allowed;
  const denied = call('fetch_url', { url: 'http://127.0.0.1:8080/admin/export?all=true' });
  await page.locator('li.card.pending[data-tool="fetch_url"]').getByRole('button', { name: 'Deny' }).click();
  await denied;
  // Left waiting for the pending view: a network call and a long document (folded on the page).
  const orders = Array.from({ length: 40 }, (_, i) => ({
    id: 1000 + i,
    customer: `customer-${i}@example.com`,
    total: (i * 17.5).toFixed(2),
  }));
  void call('fetch_url', { url: 'http://127.0.0.1:8080/status' });
  await page.locator('li.card.pending[data-tool="fetch_url"]').waitFor();
  void call('json_query', { json: JSON.stringify({ orders }), path: '.orders[*].customer' });
  await page.locator('li.card.pending[data-tool="json_query"]').waitFor();

  await noLocalPaths(page, 'pending');
  await page.screenshot({ path: join(OUT, 'ui-pending.png'), fullPage: true });
  await page.getByRole('link', { name: 'Recent calls' }).click();
  await page.locator('#recent-body tr').nth(3).waitFor();
  await noLocalPaths(page, 'recent calls');
  await page.screenshot({ path: join(OUT, 'ui-recent.png'), fullPage: true });
  await page.getByRole('link', { name: 'Tools' }).click();
  await page.locator('#tools-list li').first().waitFor();
  await noLocalPaths(page, 'tools');
  await page.screenshot({ path: join(OUT, 'ui-tools.png'), fullPage: false });
  const narrow = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await narrow.goto(`${url}/ui`);
  await narrow.getByLabel('Approver credential').fill(secret);
  await narrow.getByRole('button', { name: 'Sign in' }).click();
  await narrow.locator('li.card.pending[data-tool="fetch_url"]').waitFor();
  await noLocalPaths(narrow, 'narrow pending');
  await narrow.screenshot({ path: join(OUT, 'ui-narrow.png') });
  console.log(
    `wrote ${['ui-pending', 'ui-recent', 'ui-tools', 'ui-narrow'].map((n) => join(OUT, `${n}.png`)).join(', ')}`,
  );
} finally {
  await browser.close();
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(home, { recursive: true, force: true });
}
