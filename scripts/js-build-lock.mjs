#!/usr/bin/env node
// Writes pdk-examples/js/lib/build-lock.json: the part of toolgate's package-lock.json that builds a
// tool written in JavaScript or TypeScript (esbuild, componentize-js, preview2-shim and everything
// they pull in), as the lockfile of a package whose devDependencies are exactly those three.
// `toolgate new --lang ts|js` writes it into the scaffold as its package-lock.json, so the
// scaffold's `npm ci` installs the very versions toolgate is built and tested with (a component
// built by another componentize-js or jco is refused at load) and needs no registry look-up when
// npm's cache holds them (docs/decisions.md, "JavaScript tools: components of one fixed world").
//   node scripts/js-build-lock.mjs           write the file
//   node scripts/js-build-lock.mjs --check   exit 1 when the file is not what package-lock.json gives
import { readFileSync, writeFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const at = (p) => new URL(p, root).pathname;
const OUT = 'pdk-examples/js/lib/build-lock.json';
const ROOTS = ['esbuild', '@bytecodealliance/componentize-js', '@bytecodealliance/preview2-shim'];

const lock = JSON.parse(readFileSync(at('package-lock.json'), 'utf8'));
const packages = lock.packages;

/** Node's lookup: the nearest node_modules/<name> from `from` upwards. */
function resolveFrom(from, name) {
  let base = from;
  for (;;) {
    const path = `${base === '' ? '' : `${base}/`}node_modules/${name}`;
    if (packages[path] !== undefined) return path;
    if (base === '') return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

/** Each edge of a lock entry: [name, optional]. A missing optional peer is not an edge. */
function edges(entry) {
  const out = [];
  for (const name of Object.keys(entry.dependencies ?? {})) out.push([name, false]);
  for (const name of Object.keys(entry.optionalDependencies ?? {})) out.push([name, true]);
  for (const name of Object.keys(entry.peerDependencies ?? {}))
    out.push([name, entry.peerDependenciesMeta?.[name]?.optional === true]);
  return out;
}

/** The paths reachable from ROOTS; with `requiredOnly`, through non-optional edges only. */
function reach(requiredOnly) {
  const seen = new Set();
  const queue = ROOTS.map((name) => ['', name, false]);
  while (queue.length > 0) {
    const [from, name, optional] = queue.pop();
    if (requiredOnly && optional) continue;
    const path = resolveFrom(from, name);
    if (path === undefined) {
      if (optional) continue;
      throw new Error(`package-lock.json: ${from || 'the root'} needs ${name}, which the lockfile does not hold`);
    }
    if (seen.has(path)) continue;
    seen.add(path);
    for (const [dep, opt] of edges(packages[path])) queue.push([path, dep, opt]);
  }
  return seen;
}

const all = reach(false);
const required = reach(true);
const out = {
  name: 'toolgate-js-build',
  version: '0.0.0',
  lockfileVersion: 3,
  requires: true,
  packages: {
    '': {
      name: 'toolgate-js-build',
      version: '0.0.0',
      devDependencies: Object.fromEntries(ROOTS.map((name) => [name, packages[`node_modules/${name}`].version])),
    },
  },
};
for (const path of [...all].sort()) {
  // every one is a devDependency of the scaffold; optional when only optional edges reach it
  const { dev: _d, optional: _o, devOptional: _x, peer: _p, ...entry } = packages[path];
  out.packages[path] = { ...entry, dev: true, ...(required.has(path) ? {} : { optional: true }) };
}
const text = `${JSON.stringify(out, null, 2)}\n`;

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(at(OUT), 'utf8');
  } catch {
    // missing: reported below
  }
  if (current !== text) {
    process.stderr.write(`${OUT} is not what package-lock.json gives: run \`node scripts/js-build-lock.mjs\`\n`);
    process.exit(1);
  }
} else {
  writeFileSync(at(OUT), text);
}
