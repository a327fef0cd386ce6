// Rust, module.abi hyper-mcp: a v2 plugin (two tools, a resource and a prompt) in one file built
// with rustc for wasm32-unknown-unknown like the Rust tool scaffold, with our toolgate_pdk.rs.
import type { LanguageTemplate, ScaffoldContext, ScaffoldFile } from './types.js';

// __P__ is the plugin name (docs/authoring.md, "The hyper-mcp interface").
const SOURCE = `// __P__: a hyper-mcp v2 plugin in Rust. toolgate serves its tools as __P____greet and __P____add,
// its resource __P__://about and its prompt review.
#[path = "toolgate_pdk.rs"]
mod toolgate_pdk;

use toolgate_pdk::json::{self, Value};

fn obj(members: Vec<(&str, Value)>) -> Value {
    Value::Object(members.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

fn text(s: &str) -> Value {
    obj(vec![("type", Value::String("text".into())), ("text", Value::String(s.into()))])
}

fn answer(v: Value) -> i32 {
    toolgate_pdk::output(v.to_json().as_bytes());
    0
}

/// The input's "request" object (every v2 export but the lists gets {"request", "context"}).
fn request() -> Result<Value, String> {
    let raw = String::from_utf8(toolgate_pdk::input()).map_err(|_| "input is not UTF-8".to_string())?;
    let input = json::parse(&raw)?;
    input.get("request").cloned().ok_or_else(|| "input has no request object".to_string())
}

#[no_mangle]
pub extern "C" fn list_tools() -> i32 {
    toolgate_pdk::output(br#"{"tools":[
{"name":"greet","description":"Greets a person by name.","inputSchema":{"type":"object","properties":{"name":{"type":"string","minLength":1}},"required":["name"],"additionalProperties":false},"annotations":{"readOnlyHint":true}},
{"name":"add","description":"Adds two numbers.","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false}}]}"#);
    0
}

#[no_mangle]
pub extern "C" fn call_tool() -> i32 {
    let req = match request() {
        Ok(r) => r,
        Err(e) => return toolgate_pdk::error(&e),
    };
    let empty = obj(vec![]);
    let args = req.get("arguments").unwrap_or(&empty);
    match req.get("name").and_then(|n| n.as_str()).unwrap_or("") {
        "greet" => {
            let name = args.get("name").and_then(|n| n.as_str()).unwrap_or("");
            answer(obj(vec![("content", Value::Array(vec![text(&format!("Hello, {}!", name))]))]))
        }
        "add" => {
            let num = |k: &str| args.get(k).and_then(|v| v.as_f64()).unwrap_or(0.0);
            let sum = num("a") + num("b");
            answer(obj(vec![
                ("content", Value::Array(vec![text(&format!("{}", sum))])),
                ("structuredContent", obj(vec![("sum", Value::Number(sum))])),
            ]))
        }
        other => answer(obj(vec![("content", Value::Array(vec![text(&format!("unknown tool {}", other))])), ("isError", Value::Bool(true))])),
    }
}

#[no_mangle]
pub extern "C" fn list_resources() -> i32 {
    toolgate_pdk::output(br#"{"resources":[{"uri":"__P__://about","name":"about","description":"What __P__ is.","mimeType":"text/plain"}]}"#);
    0
}

#[no_mangle]
pub extern "C" fn read_resource() -> i32 {
    toolgate_pdk::output(br#"{"contents":[{"uri":"__P__://about","mimeType":"text/plain","text":"__P__ greets people and adds numbers."}]}"#);
    0
}

#[no_mangle]
pub extern "C" fn list_prompts() -> i32 {
    toolgate_pdk::output(br#"{"prompts":[{"name":"review","description":"Asks for a short review of a topic.","arguments":[{"name":"topic","description":"What to review.","required":true}]}]}"#);
    0
}

#[no_mangle]
pub extern "C" fn get_prompt() -> i32 {
    let req = match request() {
        Ok(r) => r,
        Err(e) => return toolgate_pdk::error(&e),
    };
    let topic = req.get("arguments").and_then(|a| a.get("topic")).and_then(|t| t.as_str()).unwrap_or("anything");
    let message = obj(vec![("role", Value::String("user".into())), ("content", text(&format!("Write a short review of {}.", topic)))]);
    answer(obj(vec![("messages", Value::Array(vec![message]))]))
}
`;

const MAKEFILE = `# Builds build/__P__.wasm. Use Debian's rustc with libstd-rust-dev-wasm32: a rustup rustc
# without the wasm32-unknown-unknown target cannot build it.
RUSTC ?= /usr/bin/rustc
RUSTFLAGS := --edition 2021 --crate-type cdylib --target wasm32-unknown-unknown -C opt-level=s -C strip=debuginfo

.PHONY: all clean
all: build/__P__.wasm
\t@:

build/__P__.wasm: __P__.rs toolgate_pdk.rs
\t@mkdir -p build
\t@$(RUSTC) $(RUSTFLAGS) --crate-name __P__ -o $@ $<

clean:
\trm -rf build
`;

export const hyperRustTemplate: LanguageTemplate = {
  label: 'Rust',
  maxPages: 32,
  buildNote: 'Needs rustc with the wasm32-unknown-unknown target (Debian: rustc libstd-rust-dev-wasm32).',
  files(ctx: ScaffoldContext): ScaffoldFile[] {
    const fill = (s: string) => s.replaceAll('__P__', ctx.tool);
    return [
      { path: `${ctx.tool}.rs`, content: fill(SOURCE) },
      { path: 'Makefile', content: fill(MAKEFILE) },
      { path: 'toolgate_pdk.rs', content: ctx.readHelper('rust/toolgate_pdk.rs') },
    ];
  },
};
