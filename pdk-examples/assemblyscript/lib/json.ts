// A small, strict JSON reader and writer for AssemblyScript tools (no json library is installed).
// AssemblyScript has no exceptions, so parse() returns null and leaves the reason in `error`.

export enum JType { Null, Bool, Num, Str, Arr, Obj }

/** At most this many arrays and objects inside one another (the shared edge-case table). */
const MAX_DEPTH = 64;

export class JValue {
  type: JType = JType.Null;
  b: bool = false;
  n: f64 = 0;
  s: string = "";
  items: JValue[] = [];
  keys: string[] = [];

  /** The last member named key (objects only), or null. */
  get(key: string): JValue | null {
    if (this.type != JType.Obj) return null;
    for (let i = this.keys.length - 1; i >= 0; i--) if (this.keys[i] == key) return this.items[i];
    return null;
  }

  typeName(): string {
    switch (this.type) {
      case JType.Bool: return "boolean";
      case JType.Num: return "number";
      case JType.Str: return "string";
      case JType.Arr: return "array";
      case JType.Obj: return "object";
      default: return "null";
    }
  }

  static str(s: string): JValue { const v = new JValue(); v.type = JType.Str; v.s = s; return v; }
  static num(n: f64): JValue { const v = new JValue(); v.type = JType.Num; v.n = n; return v; }
  static bool(b: bool): JValue { const v = new JValue(); v.type = JType.Bool; v.b = b; return v; }
  static arr(): JValue { const v = new JValue(); v.type = JType.Arr; return v; }
  static obj(): JValue { const v = new JValue(); v.type = JType.Obj; return v; }

  set(key: string, v: JValue): JValue { this.keys.push(key); this.items.push(v); return this; }
  push(v: JValue): JValue { this.items.push(v); return this; }

  toJson(): string {
    switch (this.type) {
      case JType.Null: return "null";
      case JType.Bool: return this.b ? "true" : "false";
      case JType.Num: return numberToJson(this.n);
      case JType.Str: return quote(this.s);
      case JType.Arr: {
        const parts = new Array<string>(this.items.length);
        for (let i = 0; i < this.items.length; i++) parts[i] = this.items[i].toJson();
        return "[" + parts.join(",") + "]";
      }
      default: {
        const parts = new Array<string>(this.items.length);
        for (let i = 0; i < this.items.length; i++) parts[i] = quote(this.keys[i]) + ":" + this.items[i].toJson();
        return "{" + parts.join(",") + "}";
      }
    }
  }
}

export function numberToJson(n: f64): string {
  if (!isFinite(n)) return "null"; // NaN and infinities are not JSON
  if (n == Math.trunc(n) && Math.abs(n) < 9007199254740992) return (<i64>n).toString();
  return n.toString();
}

const HEX = "0123456789abcdef";

/** s as a JSON string literal. Pieces are joined once: += in a loop would be quadratic. */
export function quote(s: string): string {
  const parts = new Array<string>();
  parts.push("\"");
  let run = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c != 0x22 && c != 0x5c) continue;
    parts.push(s.substring(run, i));
    run = i + 1;
    if (c == 0x22) parts.push("\\\"");
    else if (c == 0x5c) parts.push("\\\\");
    else if (c == 0x0a) parts.push("\\n");
    else if (c == 0x0d) parts.push("\\r");
    else if (c == 0x09) parts.push("\\t");
    else parts.push("\\u00" + HEX.charAt(c >> 4) + HEX.charAt(c & 15));
  }
  parts.push(s.substring(run));
  parts.push("\"");
  return parts.join("");
}

export class JsonParser {
  s: string;
  i: i32 = 0;
  error: string = "";

  constructor(s: string) { this.s = s; }

  /** Parses the whole text; null on failure, with the reason in `error`. */
  parse(): JValue | null {
    const v = this.value(0);
    if (v === null) return null;
    this.ws();
    if (this.i != this.s.length) return this.fail("trailing characters after the JSON value");
    return v;
  }

  fail(what: string): JValue | null {
    if (this.error.length == 0) this.error = "invalid JSON at character " + this.i.toString() + ": " + what;
    return null;
  }

  ws(): void {
    while (this.i < this.s.length) {
      const c = this.s.charCodeAt(this.i);
      if (c != 0x20 && c != 0x09 && c != 0x0a && c != 0x0d) break;
      this.i++;
    }
  }

  lit(word: string, v: JValue): JValue | null {
    if (this.s.substr(this.i, word.length) != word) return this.fail("unexpected character");
    this.i += word.length;
    return v;
  }

  value(depth: i32): JValue | null {
    this.ws();
    if (this.i >= this.s.length) return this.fail("unexpected end of input");
    const c = this.s.charCodeAt(this.i);
    if ((c == 0x7b || c == 0x5b) && depth >= MAX_DEPTH) return this.fail("nesting too deep");
    if (c == 0x7b /* { */) {
      this.i++;
      const o = JValue.obj();
      this.ws();
      if (this.i < this.s.length && this.s.charCodeAt(this.i) == 0x7d) { this.i++; return o; }
      while (true) {
        this.ws();
        if (this.i >= this.s.length || this.s.charCodeAt(this.i) != 0x22) return this.fail("expected a member name");
        const k = this.string();
        if (k === null) return null;
        this.ws();
        if (this.i >= this.s.length || this.s.charCodeAt(this.i) != 0x3a) return this.fail("expected ':'");
        this.i++;
        const v = this.value(depth + 1);
        if (v === null) return null;
        o.set(k, v);
        this.ws();
        if (this.i < this.s.length && this.s.charCodeAt(this.i) == 0x2c) { this.i++; continue; }
        if (this.i < this.s.length && this.s.charCodeAt(this.i) == 0x7d) { this.i++; return o; }
        return this.fail("expected ',' or '}'");
      }
    }
    if (c == 0x5b /* [ */) {
      this.i++;
      const a = JValue.arr();
      this.ws();
      if (this.i < this.s.length && this.s.charCodeAt(this.i) == 0x5d) { this.i++; return a; }
      while (true) {
        const v = this.value(depth + 1);
        if (v === null) return null;
        a.push(v);
        this.ws();
        if (this.i < this.s.length && this.s.charCodeAt(this.i) == 0x2c) { this.i++; continue; }
        if (this.i < this.s.length && this.s.charCodeAt(this.i) == 0x5d) { this.i++; return a; }
        return this.fail("expected ',' or ']'");
      }
    }
    if (c == 0x22) {
      const s = this.string();
      return s === null ? null : JValue.str(s);
    }
    if (c == 0x74) return this.lit("true", JValue.bool(true));
    if (c == 0x66) return this.lit("false", JValue.bool(false));
    if (c == 0x6e) return this.lit("null", new JValue());
    if (c == 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    return this.fail("unexpected character");
  }

  digits(): i32 {
    const start = this.i;
    while (this.i < this.s.length) {
      const c = this.s.charCodeAt(this.i);
      if (c < 0x30 || c > 0x39) break;
      this.i++;
    }
    return this.i - start;
  }

  number(): JValue | null {
    const start = this.i;
    if (this.s.charCodeAt(this.i) == 0x2d) this.i++;
    if (this.i < this.s.length && this.s.charCodeAt(this.i) == 0x30) this.i++;
    else if (this.digits() == 0) return this.fail("bad number");
    if (this.i < this.s.length && this.s.charCodeAt(this.i) == 0x2e) {
      this.i++;
      if (this.digits() == 0) return this.fail("bad number");
    }
    if (this.i < this.s.length && (this.s.charCodeAt(this.i) | 0x20) == 0x65) {
      this.i++;
      if (this.i < this.s.length && (this.s.charCodeAt(this.i) == 0x2b || this.s.charCodeAt(this.i) == 0x2d)) this.i++;
      if (this.digits() == 0) return this.fail("bad number");
    }
    const n = parseFloat(this.s.substring(start, this.i));
    // 1e400 is no double: refused, never read as infinity (which JSON cannot write back)
    if (!isFinite(n)) return this.fail("number out of range");
    return JValue.num(n);
  }

  hex4(): i32 {
    if (this.i + 4 > this.s.length) return -1;
    let v = 0;
    for (let k = 0; k < 4; k++) {
      const c = this.s.charCodeAt(this.i++);
      let d = -1;
      if (c >= 0x30 && c <= 0x39) d = c - 0x30;
      else if (c >= 0x61 && c <= 0x66) d = c - 0x61 + 10;
      else if (c >= 0x41 && c <= 0x46) d = c - 0x41 + 10;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    return v;
  }

  string(): string | null {
    this.i++; // opening quote
    const parts = new Array<string>();
    let run = this.i;
    while (true) {
      if (this.i >= this.s.length) { this.fail("unterminated string"); return null; }
      const c = this.s.charCodeAt(this.i);
      if (c == 0x22) {
        parts.push(this.s.substring(run, this.i));
        this.i++;
        return parts.join("");
      }
      if (c < 0x20) { this.fail("control character in string"); return null; }
      if (c != 0x5c) { this.i++; continue; }
      parts.push(this.s.substring(run, this.i));
      this.i++;
      if (this.i >= this.s.length) { this.fail("unterminated string"); return null; }
      const e = this.s.charCodeAt(this.i++);
      if (e == 0x22) parts.push("\"");
      else if (e == 0x5c) parts.push("\\");
      else if (e == 0x2f) parts.push("/");
      else if (e == 0x62) parts.push("\b");
      else if (e == 0x66) parts.push("\f");
      else if (e == 0x6e) parts.push("\n");
      else if (e == 0x72) parts.push("\r");
      else if (e == 0x74) parts.push("\t");
      else if (e == 0x75) {
        let cp = this.hex4();
        if (cp < 0) { this.fail("bad \\u escape"); return null; }
        if (cp >= 0xd800 && cp < 0xdc00) {
          if (this.s.substr(this.i, 2) != "\\u") { this.fail("lone surrogate"); return null; }
          this.i += 2;
          const lo = this.hex4();
          if (lo < 0xdc00 || lo >= 0xe000) { this.fail("lone surrogate"); return null; }
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        } else if (cp >= 0xdc00 && cp < 0xe000) {
          this.fail("lone surrogate");
          return null;
        }
        parts.push(String.fromCodePoint(cp));
      } else {
        this.fail("bad escape");
        return null;
      }
      run = this.i;
    }
  }
}

/**
 * Reads the arguments object from the input text. Returns null with the reason in err[0] when the
 * text is not JSON or not an object.
 */
export function parseArgs(text: string, err: string[]): JValue | null {
  const p = new JsonParser(text);
  const v = p.parse();
  if (v === null) { err[0] = p.error; return null; }
  if (v.type != JType.Obj) { err[0] = "the arguments must be a JSON object"; return null; }
  return v;
}

/** A string argument; null with err[0] set when it has the wrong type or is missing but required. */
export function argString(args: JValue, key: string, required: bool, err: string[]): string | null {
  const v = args.get(key);
  if (v === null || (v.type == JType.Null && !required)) {
    if (required) err[0] = "argument '" + key + "' is required";
    return null;
  }
  if (v.type != JType.Str) {
    err[0] = "argument '" + key + "' must be a string, got a " + v.typeName();
    return null;
  }
  return v.s;
}

/** A number argument, or dflt when absent; NaN with err[0] set when it has the wrong type. */
export function argNumber(args: JValue, key: string, dflt: f64, err: string[]): f64 {
  const v = args.get(key);
  if (v === null || v.type == JType.Null) return dflt;
  if (v.type != JType.Num) {
    err[0] = "argument '" + key + "' must be a number, got a " + v.typeName();
    return NaN;
  }
  return v.n;
}
