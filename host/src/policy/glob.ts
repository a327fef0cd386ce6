// Globs for paths and hosts, compiled once to RegExp. Paths: `*` stays inside one segment, `**/`
// spans any number of them (including none), so `**/.env*` matches `.env`, `a/.env` and `/x/y/.env.local`.
// Hosts: `*` spans labels (`*.example.com` covers `a.b.example.com`) and matching ignores case.
// They compile on RE2: `*a*a*a*a*b` as a backtracking regex is polynomial in the argument's length.
import { linearRegex, type LinearRegex, type LinearRegexOptions } from '../regex/index.js';

const SPECIAL = /[.+^${}()|[\]\\]/g;

function braces(src: string, i: number): { re: string; end: number } | undefined {
  const close = src.indexOf('}', i);
  if (close === -1) return undefined;
  const alts = src
    .slice(i + 1, close)
    .split(',')
    .map((a) => a.replace(SPECIAL, '\\$&').replace(/\*/g, '[^/]*'));
  return { re: `(?:${alts.join('|')})`, end: close };
}

// `beneath`: the glob also matches everything under a path it matches (the dotenv glob then
// matches `a/.env/` and `a/.env/x`), as a red line means "this and what it holds"; and `**`
// crosses line breaks too, since a file name may hold one. For deny lists only: an allow list
// must stay narrow.
export interface PathGlobOptions extends LinearRegexOptions {
  beneath?: boolean;
}

export function pathGlob(glob: string, options: PathGlobOptions = {}): LinearRegex {
  const { beneath = false, ...regexOptions } = options;
  const any = beneath ? '[\\s\\S]' : '.';
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      if (glob[i + 2] === '/') {
        re += `(?:${any}*/)?`;
        i += 2;
      } else {
        re += `${any}*`;
        i += 1;
      }
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '{') {
      const b = braces(glob, i);
      if (b === undefined) re += '\\{';
      else {
        re += b.re;
        i = b.end;
      }
    } else re += c.replace(SPECIAL, '\\$&');
  }
  return linearRegex(beneath ? `^${re}(?:/${any}*)?$` : `^${re}$`, regexOptions);
}

export function hostGlob(glob: string): LinearRegex {
  const re = glob
    .split('*')
    .map((part) => part.replace(SPECIAL, '\\$&').replace(/\?/g, '\\?'))
    .join('[^:/]*');
  return linearRegex(`^${re}$`, { ignoreCase: true });
}

/** The part of a path glob before its first wildcard, e.g. `/etc/**` -> `/etc`. */
export function staticPrefix(glob: string): string {
  const cut = glob.search(/[*?{[]/);
  const head = cut === -1 ? glob : glob.slice(0, cut);
  const slash = head.lastIndexOf('/');
  if (cut === -1) return head.replace(/\/+$/, '') || '/';
  return slash <= 0 ? (head.startsWith('/') ? '/' : '') : head.slice(0, slash);
}

/** A list of tool-name globs (`*`, `fs_*`); an empty or absent list matches nothing. */
export function nameMatcher(globs: readonly string[] | undefined): (name: string) => boolean {
  const res = (globs ?? []).map((g) =>
    linearRegex(
      `^${g
        .split('*')
        .map((p) => p.replace(SPECIAL, '\\$&'))
        .join('.*')}$`,
    ),
  );
  return (name) => res.some((r) => r.test(name));
}
