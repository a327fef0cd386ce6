// toolgate helpers for AssemblyScript tools, on top of @extism/as-pdk 1.0.0.
// as-pdk has no Http class and its Host.outputString cuts non-ASCII text (it sets the output length
// to the UTF-16 length), so these wrappers encode UTF-8 themselves and call the kernel imports.
import { Host, Memory, Config } from "@extism/as-pdk";
import { error_set, free, length, load_u8 } from "@extism/as-pdk/lib/env";

@external("extism:host/env", "http_request")
declare function http_request(req: u64, body: u64): u64;
@external("extism:host/env", "http_status_code")
declare function http_status_code(): i32;
@external("extism:host/env", "http_headers")
declare function http_headers(): u64;

/** Byte offset of the first invalid UTF-8 sequence, or -1 when the bytes are valid UTF-8. */
export function utf8InvalidAt(b: Uint8Array): i32 {
  let i = 0;
  const n = b.length;
  while (i < n) {
    const c = <u32>b[i];
    if (c < 0x80) { i++; continue; }
    let need = 0;
    let min: u32 = 0;
    let cp: u32 = 0;
    if (c >= 0xc2 && c <= 0xdf) { need = 2; min = 0x80; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { need = 3; min = 0x800; cp = c & 0x0f; }
    else if (c >= 0xf0 && c <= 0xf4) { need = 4; min = 0x10000; cp = c & 0x07; }
    else return i;
    if (i + need > n) return i;
    for (let k = 1; k < need; k++) {
      const cc = <u32>b[i + k];
      if ((cc & 0xc0) != 0x80) return i;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need;
  }
  return -1;
}

/** The input as text, or null (with the error already set) when it is not valid UTF-8. */
export function inputText(): string | null {
  const bytes = Host.input();
  const bad = utf8InvalidAt(bytes);
  if (bad >= 0) {
    fail("the input is not valid UTF-8 (byte " + bad.toString() + ")");
    return null;
  }
  return String.UTF8.decode(bytes.buffer);
}

/** Sets the output to s as UTF-8 (the right length, unlike Host.outputString). */
export function outputText(s: string): void {
  Host.output(Uint8Array.wrap(String.UTF8.encode(s)));
}

/** Sets the call's error; returns 1 so a tool can `return fail("...")`. */
export function fail(message: string): i32 {
  const mem = Memory.allocateString(message);
  error_set(mem.offset);
  return 1;
}

/** A manifest config value or declared secret, null when unset. */
export function config(key: string): string | null {
  return Config.get(key);
}

function loadBytes(offset: u64): Uint8Array {
  const len = <i32>length(offset);
  const out = new Uint8Array(len);
  for (let i = 0; i < len; i++) out[i] = load_u8(offset + <u64>i);
  return out;
}

export class HttpResponse {
  /** 0 when the host refused or failed the request. */
  status: i32 = 0;
  body: Uint8Array = new Uint8Array(0);
  /** The response headers as JSON text (an object), or "" when the host does not share them. */
  headersJson: string = "";
}

/** One HTTP request through the host; only hosts in the manifest's allowed_hosts are reachable. */
export function httpRequest(requestJson: string, body: Uint8Array | null): HttpResponse {
  const req = Memory.allocateString(requestJson);
  const b = body === null ? <u64>0 : Memory.allocateBytes(body).offset;
  const res = http_request(req.offset, b);
  const out = new HttpResponse();
  out.status = http_status_code();
  if (res != 0) {
    out.body = loadBytes(res);
    free(res);
  }
  const h = http_headers();
  if (h != 0) {
    const hb = loadBytes(h);
    if (utf8InvalidAt(hb) < 0) out.headersJson = String.UTF8.decode(hb.buffer);
    free(h);
  }
  free(req.offset);
  if (b != 0) free(b);
  return out;
}

/**
 * The abort handler (asc --use abort=lib/toolgate/myAbort): AssemblyScript's default imports
 * env.abort, which toolgate refuses at load. This one reports the message as the call's error
 * and then traps, so a bug still ends the call.
 */
export function myAbort(message: string | null, fileName: string | null, line: u32, column: u32): void {
  let m = "abort: " + (message === null ? "(no message)" : message);
  if (fileName !== null) m += " at " + fileName + ":" + line.toString() + ":" + column.toString();
  fail(m);
  unreachable();
}

// ---- the calling MCP client (toolgate:mcp): each function needs its feature in the manifest's
// capabilities.mcp; a function a tool never calls is not imported (asc drops unused declares).

@external("toolgate:mcp", "log")
declare function mcp_log(level: i32, msg: u64): i32;
@external("toolgate:mcp", "progress")
declare function mcp_progress(progress: f64, total: f64, msg: u64): i32;
@external("toolgate:mcp", "elicit")
declare function mcp_elicit(params: u64): u64;
@external("toolgate:mcp", "sample")
declare function mcp_sample(params: u64): u64;
@external("toolgate:mcp", "roots")
declare function mcp_roots(params: u64): u64;

/** MCP log levels (notifications/message), least to most severe. */
export enum McpLevel { Debug = 0, Info = 1, Notice = 2, Warning = 3, Error = 4, Critical = 5, Alert = 6, Emergency = 7 }

function storeText(s: string): u64 {
  return Memory.allocateBytes(Uint8Array.wrap(String.UTF8.encode(s))).offset;
}

/**
 * Sends a log line to the MCP client (capabilities.mcp: logging). True when sent; false when the
 * client's level filtered it out, there is no MCP client, or the call's log budget is spent.
 */
export function mcpLog(level: McpLevel, message: string): bool {
  const m = storeText(message);
  const rc = mcp_log(<i32>level, m);
  free(m);
  return rc == 0;
}

/** Reports progress (capabilities.mcp: progress); total <= 0 = unknown, message "" = none. */
export function mcpProgress(progress: f64, total: f64, message: string): bool {
  const m = message.length > 0 ? storeText(message) : <u64>0;
  const rc = mcp_progress(progress, total, m);
  if (m != 0) free(m);
  return rc == 0;
}

function answerText(r: u64): string {
  if (r == 0) return "";
  const b = loadBytes(r);
  free(r);
  return utf8InvalidAt(b) < 0 ? String.UTF8.decode(b.buffer) : "";
}

/**
 * Asks the client's user (capabilities.mcp: elicitation) with elicitation/create params as JSON
 * text. Returns the answer as JSON text: the client's result ({"action", "content"}) or
 * {"error": {"code", "message"}} (DENIED by policy, UNAVAILABLE, INVALID_REQUEST, FAILED, PENDING).
 *
 * Every request's params may carry "inputKey": "<key>" (1-64 of A-Z a-z 0-9 _ . -), never sent to
 * the client: under MCP 2026-07-28 the question is asked as the call's result (an input round) and
 * the key names it. Such a request answers {"error": {"code": "PENDING", ...}}: the question went
 * to the client and the call runs again from the start with the answer, so ask any other questions
 * and return (the output is discarded). A 2025-11-25 session ignores the key.
 */
export function mcpElicit(paramsJson: string): string {
  const p = storeText(paramsJson);
  const r = mcp_elicit(p);
  free(p);
  return answerText(r);
}

/** Asks the client's model (capabilities.mcp: sampling) with sampling/createMessage params; as mcpElicit. */
export function mcpSample(paramsJson: string): string {
  const p = storeText(paramsJson);
  const r = mcp_sample(p);
  free(p);
  return answerText(r);
}

/**
 * Asks the client for its roots (capabilities.mcp: roots; roots/list) with "{}" or
 * {"inputKey": ...} (nothing else); {"roots": [{"uri", "name"}, ...]} or {"error": ...} as mcpElicit.
 */
export function mcpRoots(paramsJson: string): string {
  const p = storeText(paramsJson);
  const r = mcp_roots(p);
  free(p);
  return answerText(r);
}
