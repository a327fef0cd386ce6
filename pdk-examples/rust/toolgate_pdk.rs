//! toolgate_pdk: a small Rust wrapper over the Extism kernel ABI ("extism:host/env") for tools
//! that run under toolgate, plus a strict JSON reader/writer (crates.io is not needed).
//!
//! Use it as a module: `#[path = "toolgate_pdk.rs"] mod toolgate_pdk;` and export your tool with
//! `#[no_mangle] pub extern "C" fn my_tool() -> i32 { toolgate_pdk::run(|args| ...) }`.
#![allow(dead_code)]

pub mod sys {
    #[link(wasm_import_module = "extism:host/env")]
    extern "C" {
        pub fn input_length() -> u64;
        pub fn input_load_u8(offset: u64) -> u8;
        pub fn input_load_u64(offset: u64) -> u64;
        pub fn length(handle: u64) -> u64;
        pub fn alloc(length: u64) -> u64;
        pub fn free(handle: u64);
        pub fn load_u8(at: u64) -> u8;
        pub fn load_u64(at: u64) -> u64;
        pub fn store_u8(at: u64, v: u8);
        pub fn store_u64(at: u64, v: u64);
        pub fn output_set(handle: u64, length: u64);
        pub fn error_set(handle: u64);
        pub fn config_get(key: u64) -> u64;
        pub fn var_get(key: u64) -> u64;
        pub fn var_set(key: u64, value: u64);
        pub fn log_info(msg: u64);
        pub fn log_warn(msg: u64);
        pub fn log_error(msg: u64);
        pub fn log_debug(msg: u64);
        pub fn http_request(request: u64, body: u64) -> u64;
        pub fn http_status_code() -> i32;
        pub fn http_headers() -> u64;
    }

    /// The calling MCP client; each function needs its feature in the manifest's capabilities.mcp
    /// (a function a tool never calls is not imported).
    pub mod mcp {
        #[link(wasm_import_module = "toolgate:mcp")]
        extern "C" {
            pub fn log(level: i32, msg: u64) -> i32;
            pub fn progress(progress: f64, total: f64, msg: u64) -> i32;
            pub fn elicit(params: u64) -> u64;
            pub fn sample(params: u64) -> u64;
            pub fn roots(params: u64) -> u64;
        }
    }
}

/// Copies bytes into a fresh Extism block (8 bytes per host call where possible).
pub fn store(data: &[u8]) -> u64 {
    unsafe {
        let h = sys::alloc(data.len() as u64);
        let mut chunks = data.chunks_exact(8);
        let mut at = h;
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            sys::store_u64(at, u64::from_le_bytes(w));
            at += 8;
        }
        for b in chunks.remainder() {
            sys::store_u8(at, *b);
            at += 1;
        }
        h
    }
}

/// Copies an Extism block into a Vec (None for handle 0).
pub fn load(handle: u64) -> Option<Vec<u8>> {
    if handle == 0 {
        return None;
    }
    unsafe {
        let len = sys::length(handle) as usize;
        let mut out = Vec::with_capacity(len);
        let mut i = 0usize;
        while i + 8 <= len {
            out.extend_from_slice(&sys::load_u64(handle + i as u64).to_le_bytes());
            i += 8;
        }
        while i < len {
            out.push(sys::load_u8(handle + i as u64));
            i += 1;
        }
        Some(out)
    }
}

/// The call's input: the validated arguments as UTF-8 JSON.
pub fn input() -> Vec<u8> {
    unsafe {
        let len = sys::input_length() as usize;
        let mut out = Vec::with_capacity(len);
        let mut i = 0usize;
        while i + 8 <= len {
            out.extend_from_slice(&sys::input_load_u64(i as u64).to_le_bytes());
            i += 8;
        }
        while i < len {
            out.push(sys::input_load_u8(i as u64));
            i += 1;
        }
        out
    }
}

pub fn output(bytes: &[u8]) {
    let h = store(bytes);
    unsafe { sys::output_set(h, bytes.len() as u64) }
}

/// Sets the call's error and returns 1, the exit code of a failed call.
pub fn error(msg: &str) -> i32 {
    let h = store(msg.as_bytes());
    unsafe { sys::error_set(h) }
    1
}

/// A manifest `config` value or declared secret, None when unset.
pub fn config(key: &str) -> Option<String> {
    let k = store(key.as_bytes());
    let v = unsafe { sys::config_get(k) };
    unsafe { sys::free(k) };
    let out = load(v).map(|b| String::from_utf8_lossy(&b).into_owned());
    if v != 0 {
        unsafe { sys::free(v) };
    }
    out
}

/// Per-instance variables: they live as long as the instance, which toolgate may replace at any time.
pub fn var_get(key: &str) -> Option<Vec<u8>> {
    let k = store(key.as_bytes());
    let v = unsafe { sys::var_get(k) };
    unsafe { sys::free(k) };
    let out = load(v);
    if v != 0 {
        unsafe { sys::free(v) };
    }
    out
}

pub fn var_set(key: &str, value: Option<&[u8]>) {
    let k = store(key.as_bytes());
    let v = value.map(store).unwrap_or(0);
    unsafe { sys::var_set(k, v) };
    unsafe { sys::free(k) };
}

pub enum LogLevel {
    Debug,
    Info,
    Warn,
    Error,
}

pub fn log(level: LogLevel, msg: &str) {
    let m = store(msg.as_bytes());
    unsafe {
        match level {
            LogLevel::Debug => sys::log_debug(m),
            LogLevel::Info => sys::log_info(m),
            LogLevel::Warn => sys::log_warn(m),
            LogLevel::Error => sys::log_error(m),
        }
        sys::free(m);
    }
}

/// MCP log levels (notifications/message), least to most severe.
#[derive(Clone, Copy)]
pub enum McpLevel {
    Debug = 0,
    Info = 1,
    Notice = 2,
    Warning = 3,
    Error = 4,
    Critical = 5,
    Alert = 6,
    Emergency = 7,
}

/// Sends a log line to the MCP client (capabilities.mcp: logging). True when it was sent; false
/// when the client's level filtered it out, there is no MCP client, or the log budget is spent.
pub fn mcp_log(level: McpLevel, msg: &str) -> bool {
    let m = store(msg.as_bytes());
    let rc = unsafe { sys::mcp::log(level as i32, m) };
    unsafe { sys::free(m) };
    rc == 0
}

/// Reports progress (capabilities.mcp: progress); `total` None = unknown. True when sent; false
/// without a progressToken or when the value did not increase.
pub fn mcp_progress(progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
    let m = message.map(|t| store(t.as_bytes())).unwrap_or(0);
    let rc = unsafe { sys::mcp::progress(progress, total.unwrap_or(0.0), m) };
    if m != 0 {
        unsafe { sys::free(m) };
    }
    rc == 0
}

fn mcp_ask(f: unsafe extern "C" fn(u64) -> u64, params: &json::Value) -> Result<json::Value, (String, String)> {
    let p = store(params.to_json().as_bytes());
    let r = unsafe { f(p) };
    let answer = load(r).and_then(|b| String::from_utf8(b).ok()).unwrap_or_default();
    unsafe {
        sys::free(p);
        if r != 0 {
            sys::free(r)
        }
    }
    let value = json::parse(&answer).map_err(|e| ("FAILED".to_string(), e))?;
    if let Some(err) = value.get("error") {
        let code = err.get("code").and_then(|c| c.as_str()).unwrap_or("FAILED").to_string();
        let message = err.get("message").and_then(|c| c.as_str()).unwrap_or("").to_string();
        return Err((code, message));
    }
    Ok(value)
}

/// Asks the client's user (capabilities.mcp: elicitation) with elicitation/create params
/// (`{"message", "requestedSchema"}`). Ok: the client's result (`action`, `content`); Err: (code,
/// message) with code DENIED (policy), UNAVAILABLE, INVALID_REQUEST, FAILED or PENDING.
///
/// Every request's params may carry `"inputKey": "<key>"` (1-64 of `A-Za-z0-9_.-`), never sent
/// to the client: under MCP 2026-07-28 the question is asked as the call's result (an input
/// round) and the key names it. Such a request answers Err(("PENDING", ..)): the question went to
/// the client and the call runs again from the start with the answer, so ask any other questions
/// and return (the output is discarded). A 2025-11-25 session ignores the key.
pub fn mcp_elicit(params: &json::Value) -> Result<json::Value, (String, String)> {
    mcp_ask(sys::mcp::elicit, params)
}

/// Asks the client's model (capabilities.mcp: sampling) with sampling/createMessage params; as
/// mcp_elicit.
pub fn mcp_sample(params: &json::Value) -> Result<json::Value, (String, String)> {
    mcp_ask(sys::mcp::sample, params)
}

/// Asks the client for its roots (capabilities.mcp: roots; roots/list) with `{}` or
/// `{"inputKey": ..}` (nothing else). Ok: `{"roots": [{"uri", "name"}, ..]}`; Err as mcp_elicit
/// (UNAVAILABLE when the client did not declare roots).
pub fn mcp_roots(params: &json::Value) -> Result<json::Value, (String, String)> {
    mcp_ask(sys::mcp::roots, params)
}

pub struct HttpResponse {
    /// 0 when the host refused or failed the request.
    pub status: i32,
    pub body: Vec<u8>,
    /// The response headers as a JSON object, when the host shares them.
    pub headers: Option<json::Value>,
}

/// One HTTP request through the host (only hosts in the manifest's allowed_hosts).
pub fn http(method: &str, url: &str, headers: &[(&str, &str)], body: Option<&[u8]>) -> HttpResponse {
    let mut hs = Vec::new();
    for (k, v) in headers {
        hs.push((k.to_string(), json::Value::String(v.to_string())));
    }
    let req = json::Value::Object(vec![
        ("url".to_string(), json::Value::String(url.to_string())),
        ("method".to_string(), json::Value::String(method.to_string())),
        ("headers".to_string(), json::Value::Object(hs)),
    ]);
    let r = store(req.to_json().as_bytes());
    let b = body.map(store).unwrap_or(0);
    let res = unsafe { sys::http_request(r, b) };
    let status = unsafe { sys::http_status_code() };
    let body = load(res).unwrap_or_default();
    let hh = unsafe { sys::http_headers() };
    let headers = load(hh).and_then(|b| String::from_utf8(b).ok()).and_then(|s| json::parse(&s).ok());
    unsafe {
        sys::free(r);
        if b != 0 {
            sys::free(b)
        }
        if res != 0 {
            sys::free(res)
        }
        if hh != 0 {
            sys::free(hh)
        }
    }
    HttpResponse { status, body, headers }
}

/// Runs a tool body: parses the input as a JSON object, calls `f`, and writes its value as JSON
/// output, or its message as the call's error. Returns the export's exit code.
pub fn run<F: FnOnce(&json::Value) -> Result<json::Value, String>>(f: F) -> i32 {
    let bytes = input();
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => return error(&format!("the input is not valid UTF-8 (byte {})", e.utf8_error().valid_up_to())),
    };
    let args = match json::parse(&text) {
        Ok(v) => v,
        Err(e) => return error(&e),
    };
    if !matches!(args, json::Value::Object(_)) {
        return error("the arguments must be a JSON object");
    }
    match f(&args) {
        Ok(v) => {
            output(v.to_json().as_bytes());
            0
        }
        Err(msg) => error(&msg),
    }
}

pub mod json {
    use std::fmt::Write;

    #[derive(Clone, Debug, PartialEq)]
    pub enum Value {
        Null,
        Bool(bool),
        Number(f64),
        String(String),
        Array(Vec<Value>),
        /// Members in document order.
        Object(Vec<(String, Value)>),
    }

    /// At most this many arrays and objects inside one another (the shared edge-case table).
    const MAX_DEPTH: usize = 64;

    impl Value {
        pub fn get(&self, key: &str) -> Option<&Value> {
            match self {
                Value::Object(m) => m.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
                _ => None,
            }
        }
        pub fn as_str(&self) -> Option<&str> {
            match self {
                Value::String(s) => Some(s),
                _ => None,
            }
        }
        pub fn as_f64(&self) -> Option<f64> {
            match self {
                Value::Number(n) => Some(*n),
                _ => None,
            }
        }
        pub fn as_bool(&self) -> Option<bool> {
            match self {
                Value::Bool(b) => Some(*b),
                _ => None,
            }
        }
        pub fn type_name(&self) -> &'static str {
            match self {
                Value::Null => "null",
                Value::Bool(_) => "boolean",
                Value::Number(_) => "number",
                Value::String(_) => "string",
                Value::Array(_) => "array",
                Value::Object(_) => "object",
            }
        }
        pub fn to_json(&self) -> String {
            let mut s = String::new();
            self.write(&mut s);
            s
        }
        fn write(&self, out: &mut String) {
            match self {
                Value::Null => out.push_str("null"),
                Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                Value::Number(n) => write_number(*n, out),
                Value::String(s) => write_string(s, out),
                Value::Array(a) => {
                    out.push('[');
                    for (i, v) in a.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        v.write(out);
                    }
                    out.push(']');
                }
                Value::Object(m) => {
                    out.push('{');
                    for (i, (k, v)) in m.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        write_string(k, out);
                        out.push(':');
                        v.write(out);
                    }
                    out.push('}');
                }
            }
        }
    }

    fn write_number(n: f64, out: &mut String) {
        if !n.is_finite() {
            out.push_str("null"); // NaN and infinities are not JSON
        } else if n == n.trunc() && n.abs() < 1e17 {
            let _ = write!(out, "{}", n as i64);
        } else {
            let _ = write!(out, "{}", n);
        }
    }

    pub fn write_string(s: &str, out: &mut String) {
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if (c as u32) < 0x20 => {
                    let _ = write!(out, "\\u{:04x}", c as u32);
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }

    /// Parses one JSON document; the error names the byte offset and what was wrong.
    pub fn parse(text: &str) -> Result<Value, String> {
        let mut p = Parser { s: text.as_bytes(), i: 0 };
        let v = p.value(0)?;
        p.ws();
        if p.i != p.s.len() {
            return Err(p.fail("trailing characters after the JSON value"));
        }
        Ok(v)
    }

    struct Parser<'a> {
        s: &'a [u8],
        i: usize,
    }

    impl<'a> Parser<'a> {
        fn fail(&self, what: &str) -> String {
            format!("invalid JSON at byte {}: {}", self.i, what)
        }
        fn ws(&mut self) {
            while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
                self.i += 1;
            }
        }
        fn peek(&self) -> Option<u8> {
            self.s.get(self.i).copied()
        }
        fn lit(&mut self, word: &str, v: Value) -> Result<Value, String> {
            if self.s[self.i..].starts_with(word.as_bytes()) {
                self.i += word.len();
                Ok(v)
            } else {
                Err(self.fail("unexpected character"))
            }
        }
        fn value(&mut self, depth: usize) -> Result<Value, String> {
            self.ws();
            if matches!(self.peek(), Some(b'{') | Some(b'[')) && depth >= MAX_DEPTH {
                return Err(self.fail("nesting too deep"));
            }
            match self.peek() {
                None => Err(self.fail("unexpected end of input")),
                Some(b'{') => {
                    self.i += 1;
                    let mut members = Vec::new();
                    self.ws();
                    if self.peek() == Some(b'}') {
                        self.i += 1;
                        return Ok(Value::Object(members));
                    }
                    loop {
                        self.ws();
                        if self.peek() != Some(b'"') {
                            return Err(self.fail("expected a member name"));
                        }
                        let k = self.string()?;
                        self.ws();
                        if self.peek() != Some(b':') {
                            return Err(self.fail("expected ':'"));
                        }
                        self.i += 1;
                        let v = self.value(depth + 1)?;
                        members.push((k, v));
                        self.ws();
                        match self.peek() {
                            Some(b',') => self.i += 1,
                            Some(b'}') => {
                                self.i += 1;
                                return Ok(Value::Object(members));
                            }
                            _ => return Err(self.fail("expected ',' or '}'")),
                        }
                    }
                }
                Some(b'[') => {
                    self.i += 1;
                    let mut items = Vec::new();
                    self.ws();
                    if self.peek() == Some(b']') {
                        self.i += 1;
                        return Ok(Value::Array(items));
                    }
                    loop {
                        items.push(self.value(depth + 1)?);
                        self.ws();
                        match self.peek() {
                            Some(b',') => self.i += 1,
                            Some(b']') => {
                                self.i += 1;
                                return Ok(Value::Array(items));
                            }
                            _ => return Err(self.fail("expected ',' or ']'")),
                        }
                    }
                }
                Some(b'"') => Ok(Value::String(self.string()?)),
                Some(b't') => self.lit("true", Value::Bool(true)),
                Some(b'f') => self.lit("false", Value::Bool(false)),
                Some(b'n') => self.lit("null", Value::Null),
                Some(c) if c == b'-' || c.is_ascii_digit() => self.number(),
                Some(_) => Err(self.fail("unexpected character")),
            }
        }
        fn digits(&mut self) -> usize {
            let start = self.i;
            while self.peek().map_or(false, |c| c.is_ascii_digit()) {
                self.i += 1;
            }
            self.i - start
        }
        fn number(&mut self) -> Result<Value, String> {
            let start = self.i;
            if self.peek() == Some(b'-') {
                self.i += 1;
            }
            if self.peek() == Some(b'0') {
                self.i += 1;
            } else if self.digits() == 0 {
                return Err(self.fail("bad number"));
            }
            if self.peek() == Some(b'.') {
                self.i += 1;
                if self.digits() == 0 {
                    return Err(self.fail("bad number"));
                }
            }
            if matches!(self.peek(), Some(b'e') | Some(b'E')) {
                self.i += 1;
                if matches!(self.peek(), Some(b'+') | Some(b'-')) {
                    self.i += 1;
                }
                if self.digits() == 0 {
                    return Err(self.fail("bad number"));
                }
            }
            let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("0");
            match text.parse::<f64>() {
                // 1e400 is no double: refused, never read as infinity (which JSON cannot write back)
                Ok(n) if n.is_finite() => Ok(Value::Number(n)),
                Ok(_) => Err(self.fail("number out of range")),
                Err(_) => Err(self.fail("bad number")),
            }
        }
        fn hex4(&mut self) -> Result<u32, String> {
            if self.i + 4 > self.s.len() {
                return Err(self.fail("short \\u escape"));
            }
            let mut v = 0u32;
            for _ in 0..4 {
                let d = (self.s[self.i] as char).to_digit(16).ok_or_else(|| self.fail("bad \\u escape"))?;
                v = v * 16 + d;
                self.i += 1;
            }
            Ok(v)
        }
        fn string(&mut self) -> Result<String, String> {
            self.i += 1; // opening quote
            let mut out = String::new();
            loop {
                // Copy the longest run without quotes, escapes or control characters in one go.
                let start = self.i;
                while self.i < self.s.len() && self.s[self.i] != b'"' && self.s[self.i] != b'\\' && self.s[self.i] >= 0x20 {
                    self.i += 1;
                }
                // The input is a &str, and runs end on ASCII bytes, so each run is valid UTF-8.
                out.push_str(std::str::from_utf8(&self.s[start..self.i]).map_err(|_| self.fail("invalid UTF-8"))?);
                match self.peek() {
                    None => return Err(self.fail("unterminated string")),
                    Some(b'"') => {
                        self.i += 1;
                        return Ok(out);
                    }
                    Some(b'\\') => {
                        self.i += 1;
                        let e = self.peek().ok_or_else(|| self.fail("unterminated string"))?;
                        self.i += 1;
                        match e {
                            b'"' => out.push('"'),
                            b'\\' => out.push('\\'),
                            b'/' => out.push('/'),
                            b'b' => out.push('\u{8}'),
                            b'f' => out.push('\u{c}'),
                            b'n' => out.push('\n'),
                            b'r' => out.push('\r'),
                            b't' => out.push('\t'),
                            b'u' => {
                                let mut cp = self.hex4()?;
                                if (0xD800..0xDC00).contains(&cp) {
                                    if self.s[self.i..].starts_with(b"\\u") {
                                        self.i += 2;
                                        let lo = self.hex4()?;
                                        if !(0xDC00..0xE000).contains(&lo) {
                                            return Err(self.fail("lone surrogate"));
                                        }
                                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                                    } else {
                                        return Err(self.fail("lone surrogate"));
                                    }
                                } else if (0xDC00..0xE000).contains(&cp) {
                                    return Err(self.fail("lone surrogate"));
                                }
                                out.push(char::from_u32(cp).ok_or_else(|| self.fail("bad \\u escape"))?);
                            }
                            _ => return Err(self.fail("bad escape")),
                        }
                    }
                    Some(_) => return Err(self.fail("control character in string")),
                }
            }
        }
    }
}
