// Run by `npm pack` (prepack): the package ships manifests/, so it must ship every file those
// manifests point at (module.path, module.link paths, allowed_paths hosts), built and listed in
// package.json "files". Otherwise an installed toolgate's own example manifests fail with
// "build the example modules with `make examples`" on a machine that never had the checkout.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parse } from 'yaml';

const root = resolve(new URL('..', import.meta.url).pathname);
const files = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).files;

/** Every *.yaml under manifests/, recursively. */
function manifests(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? manifests(join(dir, e.name)) : e.name.endsWith('.yaml') ? [join(dir, e.name)] : [],
  );
}

/** The files a manifest names, relative to the package root. */
function pointedAt(file) {
  const m = parse(readFileSync(file, 'utf8')) ?? {};
  const paths = [
    m.module?.path,
    ...Object.values(m.module?.link ?? {}).map((l) => (typeof l === 'string' ? l : l?.path)),
  ];
  for (const mount of Object.values(m.capabilities?.allowed_paths ?? {}))
    paths.push(typeof mount === 'string' ? mount : mount?.host);
  return paths.filter((p) => typeof p === 'string').map((p) => relative(root, resolve(dirname(file), p)));
}

const listed = (path) => files.some((f) => path === f || path.startsWith(`${f}/`));
const problems = [];
for (const file of manifests(join(root, 'manifests'))) {
  for (const path of pointedAt(file)) {
    if (!existsSync(join(root, path)))
      problems.push(`${relative(root, file)}: ${path} is missing (build the example modules with \`make examples\`)`);
    else if (!listed(path)) problems.push(`${relative(root, file)}: ${path} is not in package.json "files"`);
  }
}
// the instruction walker (scripts/build-walker.mjs): without it an installed toolgate instruments
// modules with the JavaScript walker, as cold code on a fresh server's first call
if (!existsSync(join(root, 'dist/sandbox/module/walker.wasm')))
  problems.push('dist/sandbox/module/walker.wasm is missing (run `npm run build`)');
if (problems.length > 0) {
  process.stderr.write(
    `pack-check: the package would ship manifests whose files it does not ship:\n  ${problems.join('\n  ')}\n`,
  );
  process.exit(1);
}
