// encode: encode text to, or decode it from, base64, base64url, hex or URL percent-encoding.
// Text is UTF-8 on both sides; decoding that does not give UTF-8 text is an error, not mojibake.
import { fail, inputText, outputText, utf8InvalidAt } from "../lib/toolgate";
import { JValue, argString, parseArgs } from "../lib/json";

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const HEXD = "0123456789abcdef";

function b64encode(b: Uint8Array, alphabet: string, pad: bool): string {
  const parts = new Array<string>();
  for (let i = 0; i < b.length; i += 3) {
    const n = b.length - i;
    const v = (<u32>b[i] << 16) | (n > 1 ? <u32>b[i + 1] << 8 : 0) | (n > 2 ? <u32>b[i + 2] : 0);
    let q = alphabet.charAt(v >> 18) + alphabet.charAt((v >> 12) & 63);
    q += n > 1 ? alphabet.charAt((v >> 6) & 63) : (pad ? "=" : "");
    q += n > 2 ? alphabet.charAt(v & 63) : (pad ? "=" : "");
    parts.push(q);
  }
  return parts.join("");
}

function b64value(c: i32): i32 {
  if (c >= 0x41 && c <= 0x5a) return c - 0x41;
  if (c >= 0x61 && c <= 0x7a) return c - 0x61 + 26;
  if (c >= 0x30 && c <= 0x39) return c - 0x30 + 52;
  if (c == 0x2b || c == 0x2d) return 62; // + or -
  if (c == 0x2f || c == 0x5f) return 63; // / or _
  return -1;
}

// Accepts both alphabets, with or without padding; whitespace is ignored.
function b64decode(s: string, err: string[]): Uint8Array | null {
  const out = new Array<u8>();
  let acc: u32 = 0, bits = 0, pads = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09) continue;
    if (c == 0x3d) { pads++; continue; }
    const v = b64value(c);
    if (v < 0 || pads > 0) {
      err[0] = "argument 'text' is not valid base64: unexpected character at position " + i.toString();
      return null;
    }
    acc = (acc << 6) | <u32>v;
    bits += 6;
    if (bits >= 8) { bits -= 8; out.push(<u8>((acc >> <u32>bits) & 0xff)); }
  }
  if (bits >= 6 || pads > 2) { err[0] = "argument 'text' is not valid base64: wrong length"; return null; }
  const r = new Uint8Array(out.length);
  for (let i = 0; i < out.length; i++) r[i] = out[i];
  return r;
}

function hexValue(c: i32): i32 {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

function hexEncode(b: Uint8Array): string {
  const parts = new Array<string>(b.length);
  for (let i = 0; i < b.length; i++) parts[i] = HEXD.charAt(b[i] >> 4) + HEXD.charAt(b[i] & 15);
  return parts.join("");
}

function hexDecode(s: string, err: string[]): Uint8Array | null {
  if (s.length % 2 != 0) { err[0] = "argument 'text' is not valid hex: odd number of digits"; return null; }
  const r = new Uint8Array(s.length / 2);
  for (let i = 0; i < s.length; i += 2) {
    const hi = hexValue(s.charCodeAt(i)), lo = hexValue(s.charCodeAt(i + 1));
    if (hi < 0 || lo < 0) { err[0] = "argument 'text' is not valid hex: bad digit at position " + i.toString(); return null; }
    r[i / 2] = <u8>((hi << 4) | lo);
  }
  return r;
}

// Percent-encodes everything except the RFC 3986 unreserved characters (like encodeURIComponent).
function urlEncode(b: Uint8Array): string {
  const parts = new Array<string>();
  for (let i = 0; i < b.length; i++) {
    const c = <i32>b[i];
    const keep = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) ||
      c == 0x2d || c == 0x2e || c == 0x5f || c == 0x7e;
    parts.push(keep ? String.fromCharCode(c) : "%" + HEXD.charAt(c >> 4).toUpperCase() + HEXD.charAt(c & 15).toUpperCase());
  }
  return parts.join("");
}

function urlDecode(s: string, err: string[]): Uint8Array | null {
  const src = Uint8Array.wrap(String.UTF8.encode(s));
  const out = new Uint8Array(src.length);
  let n = 0;
  for (let i = 0; i < src.length; i++) {
    const c = <i32>src[i];
    if (c != 0x25) { out[n++] = <u8>c; continue; }
    const hi = i + 2 < src.length ? hexValue(src[i + 1]) : -1;
    const lo = i + 2 < src.length ? hexValue(src[i + 2]) : -1;
    if (hi < 0 || lo < 0) { err[0] = "argument 'text' has a bad percent escape at byte " + i.toString(); return null; }
    out[n++] = <u8>((hi << 4) | lo);
    i += 2;
  }
  return out.subarray(0, n);
}

export function encode(): i32 {
  const input = inputText();
  if (input === null) return 1;
  const err: string[] = [""];
  const args = parseArgs(input, err);
  if (args === null) return fail(err[0]);
  const text = argString(args, "text", true, err);
  if (text === null) return fail(err[0]);
  const scheme = argString(args, "scheme", true, err);
  if (scheme === null) return fail(err[0]);
  let direction = argString(args, "direction", false, err);
  if (err[0].length > 0) return fail(err[0]);
  if (direction === null) direction = "encode";
  if (direction != "encode" && direction != "decode") return fail("argument 'direction' must be encode or decode");
  if (scheme != "base64" && scheme != "base64url" && scheme != "hex" && scheme != "url") {
    return fail("argument 'scheme' must be one of base64, base64url, hex, url (got '" + scheme + "')");
  }
  let result = "";
  if (direction == "encode") {
    const bytes = Uint8Array.wrap(String.UTF8.encode(text));
    if (scheme == "base64") result = b64encode(bytes, B64, true);
    else if (scheme == "base64url") result = b64encode(bytes, B64URL, false);
    else if (scheme == "hex") result = hexEncode(bytes);
    else result = urlEncode(bytes);
  } else {
    let bytes: Uint8Array | null = null;
    if (scheme == "hex") bytes = hexDecode(text, err);
    else if (scheme == "url") bytes = urlDecode(text, err);
    else bytes = b64decode(text, err);
    if (bytes === null) return fail(err[0]);
    const bad = utf8InvalidAt(bytes);
    if (bad >= 0) {
      return fail("the decoded bytes are not UTF-8 text (invalid at byte " + bad.toString() + "); decode to hex instead");
    }
    result = String.UTF8.decode(bytes.slice().buffer);
  }
  const out = JValue.obj()
    .set("result", JValue.str(result))
    .set("scheme", JValue.str(scheme))
    .set("direction", JValue.str(direction));
  outputText(out.toJson());
  return 0;
}
