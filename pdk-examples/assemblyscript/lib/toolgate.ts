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
