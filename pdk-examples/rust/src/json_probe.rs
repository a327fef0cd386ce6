// json_probe: reads its whole input with toolgate_pdk's JSON reader and writes it back, for the JSON
// edge-case table the C, Rust and AssemblyScript readers share (test/examples/json-readers.test.ts).
// Output: {"value":<the document re-written>,"a":<member "a" as get() finds it, or null>}, or
// {"refused":"<why>"} when the reader refuses the document. Not an example tool: no manifest.
#[path = "../toolgate_pdk.rs"]
mod toolgate_pdk;

use toolgate_pdk::json::{self, Value};

#[no_mangle]
pub extern "C" fn json_probe() -> i32 {
    let input = toolgate_pdk::input();
    let text = match std::str::from_utf8(&input) {
        Ok(t) => t,
        Err(e) => return toolgate_pdk::error(&format!("the input is not valid UTF-8 (byte {})", e.valid_up_to())),
    };
    let out = match json::parse(text) {
        Ok(doc) => {
            let a = doc.get("a").cloned().unwrap_or(Value::Null);
            Value::Object(vec![("value".to_string(), doc), ("a".to_string(), a)])
        }
        Err(why) => Value::Object(vec![("refused".to_string(), Value::String(why))]),
    };
    toolgate_pdk::output(out.to_json().as_bytes());
    0
}
