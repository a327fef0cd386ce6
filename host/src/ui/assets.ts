// The page's files, read from the package's ui/ folder once and served with a strict
// Content-Security-Policy: scripts, styles and connections only from this server, no inline
// script or style, no framing. Only the named files are served; nothing is looked up by path.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { HIDDEN_CHARACTER_CLASS } from '../terminal/index.js';

export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** Headers on every /ui response. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // same-origin, not no-referrer: with no-referrer Chromium sends "Origin: null" on the sign-in form's POST.
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

const FILES = {
  'index.html': 'text/html; charset=utf-8',
  'login.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'ui.css': 'text/css; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
} as const;
export type AssetName = keyof typeof FILES;

const STATIC = ['app.js', 'ui.css', 'favicon.svg'] as const;

/**
 * app.js spells out hidden characters with the host's own character class, put in where the
 * script names this placeholder: one list for the terminal, the registry and the page
 * (docs/architecture.md, "Text shown to people"). The script refuses to run without it.
 */
const HIDDEN_PLACEHOLDER = "'@@HIDDEN_CHARACTER_CLASS@@'";

/** The files under /ui/static/ (the pages themselves are served only by their routes). */
export function isStaticAsset(name: string): name is (typeof STATIC)[number] {
  return (STATIC as readonly string[]).includes(name);
}

export class Assets {
  readonly #dir: string;
  readonly #cache = new Map<AssetName, Buffer>();

  constructor(dir: string) {
    this.#dir = dir;
  }

  async #read(name: AssetName): Promise<Buffer> {
    let b = this.#cache.get(name);
    if (b === undefined) {
      b = await readFile(join(this.#dir, name));
      if (name === 'app.js')
        b = Buffer.from(b.toString('utf8').replace(HIDDEN_PLACEHOLDER, JSON.stringify(HIDDEN_CHARACTER_CLASS)));
      this.#cache.set(name, b);
    }
    return b;
  }

  async send(
    res: ServerResponse,
    status: number,
    name: AssetName,
    headers: Record<string, string> = {},
  ): Promise<void> {
    await this.sendText(res, status, name, (await this.#read(name)).toString('utf8'), headers);
  }

  /** The login page with a message in its error slot (escaped: it may quote what was sent). */
  async sendLogin(
    res: ServerResponse,
    status: number,
    message: string | undefined,
    headers: Record<string, string> = {},
  ): Promise<void> {
    const page = (await this.#read('login.html')).toString('utf8');
    const slot =
      message === undefined
        ? ''
        : `<p class="error" role="alert"><strong>Not signed in:</strong> ${escapeHtml(message)}</p>`;
    await this.sendText(res, status, 'login.html', page.replace('<!--ERROR-->', slot), headers);
  }

  async sendText(
    res: ServerResponse,
    status: number,
    name: AssetName,
    body: string,
    headers: Record<string, string> = {},
  ): Promise<void> {
    if (res.headersSent) return;
    res.writeHead(status, {
      ...SECURITY_HEADERS,
      ...headers,
      'content-type': FILES[name],
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  }
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
