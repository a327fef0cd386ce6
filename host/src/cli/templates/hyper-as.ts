// AssemblyScript, module.abi hyper-mcp: a v2 plugin (two tools, a resource and a prompt), built
// like the AssemblyScript tool scaffold (its own package.json, our lib/ copied in).
import { makefile, packageJson } from './assemblyscript.js';
import type { LanguageTemplate, ScaffoldContext, ScaffoldFile } from './types.js';

// __P__ is the plugin name (docs/authoring.md, "The hyper-mcp interface").
const SOURCE = `// __P__: a hyper-mcp v2 plugin in AssemblyScript. toolgate serves its tools as __P____greet and
// __P____add, its resource __P__://about and its prompt review.
import { fail, inputText, outputText } from "./lib/toolgate";
import { JType, JValue, parseArgs } from "./lib/json";

function text(s: string): JValue {
  return JValue.obj().set("type", JValue.str("text")).set("text", JValue.str(s));
}

/** A member of an object, or a null value when it is absent. */
function member(v: JValue, key: string): JValue {
  const m = v.get(key);
  if (m === null) return new JValue();
  return m;
}

/** The input's "request" object; a null value (with err[0] set) when there is none. */
function request(err: string[]): JValue {
  const input = inputText();
  if (input === null) { err[0] = "input is not UTF-8"; return new JValue(); }
  const parsed = parseArgs(input, err);
  if (parsed === null) return new JValue();
  const req = member(parsed, "request");
  if (req.type != JType.Obj) err[0] = "input has no request object";
  return req;
}

export function list_tools(): i32 {
  outputText('{"tools":[' +
    '{"name":"greet","description":"Greets a person by name.","inputSchema":{"type":"object","properties":{"name":{"type":"string","minLength":1}},"required":["name"],"additionalProperties":false},"annotations":{"readOnlyHint":true}},' +
    '{"name":"add","description":"Adds two numbers.","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false}}]}');
  return 0;
}

export function call_tool(): i32 {
  const err: string[] = [""];
  const req = request(err);
  if (req.type != JType.Obj) return fail(err[0]);
  const name = member(req, "name").s;
  const args = member(req, "arguments");
  if (name == "greet") {
    outputText(JValue.obj().set("content", JValue.arr().push(text("Hello, " + member(args, "name").s + "!"))).toJson());
    return 0;
  }
  if (name == "add") {
    const sum = JValue.num(member(args, "a").n + member(args, "b").n);
    outputText(JValue.obj().set("content", JValue.arr().push(text(sum.toJson()))).set("structuredContent", JValue.obj().set("sum", sum)).toJson());
    return 0;
  }
  outputText(JValue.obj().set("content", JValue.arr().push(text("unknown tool " + name))).set("isError", JValue.bool(true)).toJson());
  return 0;
}

export function list_resources(): i32 {
  outputText('{"resources":[{"uri":"__P__://about","name":"about","description":"What __P__ is.","mimeType":"text/plain"}]}');
  return 0;
}

export function read_resource(): i32 {
  outputText('{"contents":[{"uri":"__P__://about","mimeType":"text/plain","text":"__P__ greets people and adds numbers."}]}');
  return 0;
}

export function list_prompts(): i32 {
  outputText('{"prompts":[{"name":"review","description":"Asks for a short review of a topic.","arguments":[{"name":"topic","description":"What to review.","required":true}]}]}');
  return 0;
}

export function get_prompt(): i32 {
  const err: string[] = [""];
  const req = request(err);
  if (req.type != JType.Obj) return fail(err[0]);
  const topic = member(member(req, "arguments"), "topic");
  const line = "Write a short review of " + (topic.type == JType.Str ? topic.s : "anything") + ".";
  const message = JValue.obj().set("role", JValue.str("user")).set("content", text(line));
  outputText(JValue.obj().set("messages", JValue.arr().push(message)).toJson());
  return 0;
}
`;

export const hyperAssemblyscriptTemplate: LanguageTemplate = {
  label: 'AssemblyScript',
  maxPages: 16,
  buildNote: 'Needs node and npm: the first `make` installs assemblyscript and @extism/as-pdk into node_modules/.',
  files(ctx: ScaffoldContext): ScaffoldFile[] {
    return [
      { path: `${ctx.tool}.ts`, content: SOURCE.replaceAll('__P__', ctx.tool) },
      { path: 'package.json', content: packageJson(ctx.tool, ctx.buildPins) },
      { path: '.gitignore', content: 'node_modules/\nbuild/\n' },
      { path: 'Makefile', content: makefile(ctx.tool) },
      { path: 'lib/toolgate.ts', content: ctx.readHelper('assemblyscript/lib/toolgate.ts') },
      { path: 'lib/json.ts', content: ctx.readHelper('assemblyscript/lib/json.ts') },
    ];
  },
};
