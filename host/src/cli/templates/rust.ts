// Rust: a single-file cdylib built with rustc for wasm32-unknown-unknown (no cargo, no crates.io),
// with our toolgate_pdk.rs copied next to it.
import type { LanguageTemplate, ScaffoldContext, ScaffoldFile } from './types.js';

function source(tool: string): string {
  return `// ${tool}: a toolgate tool in Rust. Input {"name": string} -> output {"greeting": string}.
#[path = "toolgate_pdk.rs"]
mod toolgate_pdk;

use toolgate_pdk::json::Value;

fn greet(args: &Value) -> Result<Value, String> {
    let name = match args.get("name") {
        Some(Value::String(s)) => s,
        Some(other) => return Err(format!("argument 'name' must be a string, got a {}", other.type_name())),
        None => return Err("argument 'name' is required".to_string()),
    };
    if name.is_empty() {
        return Err("argument 'name' must not be empty".to_string());
    }
    Ok(Value::Object(vec![("greeting".to_string(), Value::String(format!("Hello, {}!", name)))]))
}

#[no_mangle]
pub extern "C" fn ${tool}() -> i32 {
    toolgate_pdk::run(greet)
}
`;
}

function makefile(tool: string): string {
  return `# Builds build/${tool}.wasm. Use Debian's rustc with libstd-rust-dev-wasm32: a rustup rustc
# without the wasm32-unknown-unknown target cannot build it.
RUSTC ?= /usr/bin/rustc
RUSTFLAGS := --edition 2021 --crate-type cdylib --target wasm32-unknown-unknown -C opt-level=s -C strip=debuginfo

.PHONY: all clean
all: build/${tool}.wasm
\t@:

build/${tool}.wasm: ${tool}.rs toolgate_pdk.rs
\t@mkdir -p build
\t@$(RUSTC) $(RUSTFLAGS) --crate-name ${tool} -o $@ $<

clean:
\trm -rf build
`;
}

export const rustTemplate: LanguageTemplate = {
  label: 'Rust',
  maxPages: 32,
  buildNote: 'Needs rustc with the wasm32-unknown-unknown target (Debian: rustc libstd-rust-dev-wasm32).',
  files(ctx: ScaffoldContext): ScaffoldFile[] {
    return [
      { path: `${ctx.tool}.rs`, content: source(ctx.tool) },
      { path: 'Makefile', content: makefile(ctx.tool) },
      { path: 'toolgate_pdk.rs', content: ctx.readHelper('rust/toolgate_pdk.rs') },
    ];
  },
};
