// Versions and ranges the way npm reads them, through npm's own `semver` package: exact, ^, ~,
// comparators, x-ranges (1.x, 1.2.x, *), hyphen ranges (1.0.0 - 2.0.0) and || unions. A range
// that does not parse is refused by the caller, never silently matched against nothing.
import semver from 'semver';

/** `latest` is what people type for "the highest version"; npm's ranges call it `*`. */
function normalRange(range: string): string {
  const text = range.trim();
  return text === 'latest' ? '*' : text;
}

export function isVersion(text: string): boolean {
  return semver.valid(text.trim()) !== null;
}

/** The range in npm's normal form, or undefined when it is not a range. */
export function parseRange(range: string): string | undefined {
  return semver.validRange(normalRange(range)) ?? undefined;
}

/** Compares two version strings; throws on a malformed one (callers validate first). */
export function compareVersionText(a: string, b: string): number {
  for (const v of [a, b]) if (!isVersion(v)) throw new Error(`not a semver version: "${v}"`);
  return semver.compare(a.trim(), b.trim());
}

/**
 * Whether `version` satisfies `range`. Prereleases match only a range that names a prerelease of the
 * same MAJOR.MINOR.PATCH (npm's rule: `^1.0.0` never silently picks `2.0.0-rc.1` or `1.1.0-beta`).
 */
export function satisfies(version: string, range: string): boolean {
  return isVersion(version) && parseRange(range) !== undefined && semver.satisfies(version.trim(), normalRange(range));
}

/** The highest version in `versions` that satisfies `range`, or undefined. */
export function maxSatisfying(versions: Iterable<string>, range: string): string | undefined {
  if (parseRange(range) === undefined) return undefined;
  return semver.maxSatisfying([...versions].filter(isVersion), normalRange(range)) ?? undefined;
}
