// toolgate's runtime for JavaScript and TypeScript tools (docs/authoring-ts.md). It is bundled into
// the tool's component by lib/build.mjs and runs inside the sandbox: it gives the tool `fetch` and
// `console` over toolgate's host functions, and turns the tool's function into the world's `call`.
import { httpRequest, log, configGet } from 'toolgate:tool/host@0.1.0';

const LEVELS = { trace: 0, debug: 1, log: 2, info: 2, warn: 3, error: 4 };

function text(args) {
  return args.map((a) => (typeof a === 'string' ? a : safeJson(a))).join(' ');
}

function safeJson(value) {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function headerObject(headers) {
  if (headers === undefined || headers === null) return undefined;
  if (typeof headers.forEach === 'function' && !Array.isArray(headers)) {
    const out = {};
    headers.forEach((v, k) => { out[k] = v; });
    return out;
  }
  return Object.fromEntries(Array.isArray(headers) ? headers : Object.entries(headers));
}

/** A small Response: status, ok, headers (a Headers), text() and json(). */
class ToolResponse {
  constructor(reply, url) {
    this.status = reply.status;
    this.ok = reply.status >= 200 && reply.status < 300;
    this.url = url;
    this.headers = new Headers(reply.headers ?? {});
    this._body = reply.body ?? '';
  }
  async text() { return this._body; }
  async json() { return JSON.parse(this._body); }
}

/** fetch through toolgate's HTTP gate; refused or failed requests reject with a TypeError. */
async function toolgateFetch(input, init = {}) {
  const url = typeof input === 'string' ? input : String(input.url ?? input);
  const request = { url, method: init.method ?? 'GET' };
  const headers = headerObject(init.headers);
  if (headers !== undefined) request.headers = headers;
  if (init.body !== undefined && init.body !== null) request.body = String(init.body);
  let reply;
  try {
    reply = JSON.parse(httpRequest(JSON.stringify(request)));
  } catch (err) {
    throw new TypeError(`fetch ${url} failed: ${err?.payload ?? err?.message ?? err}`);
  }
  return new ToolResponse(reply, url);
}

const toolConsole = {};
for (const [name, level] of Object.entries(LEVELS)) toolConsole[name] = (...args) => log(level, text(args));

globalThis.fetch = toolgateFetch;
globalThis.console = toolConsole;

/** A config value or declared secret, or undefined. */
export function config(key) {
  return configGet(key);
}

/**
 * Runs the tool's function for the world's `call`: it must give (or resolve to) a string; a throw
 * becomes the call's error message.
 */
export async function serve(fn, input) {
  let out;
  try {
    out = await fn(input);
  } catch (err) {
    throw String(err?.message ?? err);
  }
  if (typeof out !== 'string') throw `the tool returned ${out === null ? 'null' : typeof out}, not a string`;
  return out;
}
