// A small semver: versions MAJOR.MINOR.PATCH[-pre][+build] and ranges built from ^, ~, exact,
// =, >=, >, <=, < (space-separated comparators must all hold) and * / latest. No new deps.

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  prerelease: string[];
  text: string;
}

const VERSION =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

export function parseVersion(text: string): SemVer | undefined {
  const m = VERSION.exec(text.trim());
  if (!m) return undefined;
  return {
    major: Number(m[1]),
    minor: Number(m[2]),
    patch: Number(m[3]),
    prerelease: m[4] === undefined ? [] : m[4].split('.'),
    text: text.trim(),
  };
}

export function isVersion(text: string): boolean {
  return parseVersion(text) !== undefined;
}

function comparePre(a: string[], b: string[]): number {
  if (a.length === 0 && b.length === 0) return 0;
  if (a.length === 0) return 1; // a release outranks its prereleases
  if (b.length === 0) return -1;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) {
      const d = Number(x) - Number(y);
      if (d !== 0) return Math.sign(d);
    } else if (xn !== yn) {
      return xn ? -1 : 1;
    } else if (x !== y) {
      return x < y ? -1 : 1;
    }
  }
  return 0;
}

export function compareVersions(a: SemVer, b: SemVer): number {
  return (
    Math.sign(a.major - b.major) ||
    Math.sign(a.minor - b.minor) ||
    Math.sign(a.patch - b.patch) ||
    comparePre(a.prerelease, b.prerelease)
  );
}

/** Compares two version strings; throws on a malformed one (callers validate first). */
export function compareVersionText(a: string, b: string): number {
  const va = parseVersion(a);
  const vb = parseVersion(b);
  if (!va || !vb) throw new Error(`not a semver version: "${va ? b : a}"`);
  return compareVersions(va, vb);
}

type Op = '=' | '>=' | '>' | '<=' | '<';
interface Comparator {
  op: Op;
  version: SemVer;
}

function bound(major: number, minor: number, patch: number): SemVer {
  return { major, minor, patch, prerelease: [], text: `${major}.${minor}.${patch}` };
}

/** Parses a range into comparators (AND); undefined when it is not a range this matcher knows. */
export function parseRange(range: string): Comparator[] | undefined {
  const text = range.trim();
  if (text === '' || text === '*' || text === 'latest') return [];
  const out: Comparator[] = [];
  for (const part of text.split(/\s+/)) {
    const m = /^(\^|~|>=|<=|>|<|=)?(.+)$/.exec(part);
    if (!m?.[2]) return undefined;
    const v = parseVersion(m[2]);
    if (!v) return undefined;
    const op = m[1] ?? '=';
    if (op === '^') {
      // ^1.2.3 := >=1.2.3 <2.0.0; ^0.2.3 := <0.3.0; ^0.0.3 := <0.0.4 (the left-most non-zero is fixed)
      const upper =
        v.major > 0 ? bound(v.major + 1, 0, 0) : v.minor > 0 ? bound(0, v.minor + 1, 0) : bound(0, 0, v.patch + 1);
      out.push({ op: '>=', version: v }, { op: '<', version: upper });
    } else if (op === '~') {
      out.push({ op: '>=', version: v }, { op: '<', version: bound(v.major, v.minor + 1, 0) });
    } else {
      out.push({ op: op as Op, version: v });
    }
  }
  return out;
}

function holds(c: Comparator, v: SemVer): boolean {
  const d = compareVersions(v, c.version);
  switch (c.op) {
    case '=':
      return d === 0;
    case '>=':
      return d >= 0;
    case '>':
      return d > 0;
    case '<=':
      return d <= 0;
    case '<':
      return d < 0;
  }
}

/**
 * Whether `version` satisfies `range`. Prereleases match only a range that names a prerelease of the
 * same MAJOR.MINOR.PATCH (so `^1.0.0` never silently picks `2.0.0-rc.1` or `1.1.0-beta`).
 */
export function satisfies(version: string, range: string): boolean {
  const v = parseVersion(version);
  const comps = parseRange(range);
  if (!v || !comps) return false;
  if (!comps.every((c) => holds(c, v))) return false;
  if (v.prerelease.length === 0) return true;
  return comps.some(
    (c) =>
      c.version.prerelease.length > 0 &&
      c.version.major === v.major &&
      c.version.minor === v.minor &&
      c.version.patch === v.patch,
  );
}

/** The highest version in `versions` that satisfies `range`, or undefined. */
export function maxSatisfying(versions: Iterable<string>, range: string): string | undefined {
  let best: SemVer | undefined;
  for (const text of versions) {
    if (!satisfies(text, range)) continue;
    const v = parseVersion(text);
    if (v && (!best || compareVersions(v, best) > 0)) best = v;
  }
  return best?.text;
}
