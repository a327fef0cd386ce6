// json_probe: reads its whole input with lib/json.ts and writes it back, for the JSON edge-case table
// the C, Rust and AssemblyScript readers share (test/examples/json-readers.test.ts). Output:
// {"value":<the document re-written>,"a":<member "a" as get() finds it, or null>}, or
// {"refused":"<why>"} when the reader refuses the document. Not an example tool: no manifest.
import { inputText, outputText } from "../lib/toolgate";
import { JValue, JsonParser } from "../lib/json";

export function json_probe(): i32 {
  const text = inputText();
  if (text === null) return 1;
  const p = new JsonParser(text);
  const doc = p.parse();
  if (doc === null) {
    outputText(JValue.obj().set("refused", JValue.str(p.error)).toJson());
    return 0;
  }
  const a = doc.get("a");
  outputText(JValue.obj().set("value", doc).set("a", a === null ? new JValue() : a).toJson());
  return 0;
}
