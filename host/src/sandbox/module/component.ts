// module.abi: component (docs/decisions.md, "JavaScript tools: components of one fixed world"). A
// tool's component is accepted only when every top-level section but its own core module is the
// skeleton of toolgate's world, byte for byte (by digest): so its imports, exports, types and
// wiring are the world's, and the code that lowers and lifts values beside the core module
// (worker/component-runner.ts) is toolgate's, written for that world, never derived from what the
// component says about itself. The core module then goes through prepare.ts like any module.
import { sha256Hex } from '../../digest/index.js';
import { SandboxLoadError } from '../load-error.js';
import { BinaryReader } from './leb128.js';
import { messageOf } from '../../errors/index.js';
import { COMPONENTIZE_JS_VERSION, SKELETON, TOOL_MODULE, WORLD } from './component-skeleton.js';

const MAGIC = [0x00, 0x61, 0x73, 0x6d];
/** Binary version 0x0d, layer 1: a component (a core module is version 1, layer 0). */
const COMPONENT_VERSION = [0x0d, 0x00, 0x01, 0x00];

/** What each kind of top-level section holds, for the reason a component is refused. */
const SECTION_MEANING: Record<number, string> = {
  0: 'a custom section',
  1: 'a core module',
  2: 'the core instances (how the modules are wired)',
  3: 'core types',
  4: 'a nested component',
  5: 'component instances',
  6: 'aliases (how the modules are wired)',
  7: "the types (the world's functions)",
  8: 'the canonical functions (how values are lowered and lifted)',
  9: 'a start function',
  10: 'the imports',
  11: 'the exports',
  12: 'values',
};

interface TopSection {
  id: number;
  body: Uint8Array;
}

function splitComponent(bytes: Uint8Array, fail: (rule: string) => never): TopSection[] {
  if (bytes.length < 8 || MAGIC.some((b, i) => bytes[i] !== b))
    fail('not a WebAssembly binary (missing the \\0asm magic number)');
  if (COMPONENT_VERSION.some((b, i) => bytes[4 + i] !== b))
    fail('is not a component (module.abi: component wants one built by lib/build.mjs)');
  const r = new BinaryReader(bytes, 8);
  const out: TopSection[] = [];
  while (r.pos < bytes.length) {
    const id = r.byte();
    const size = r.u32();
    if (r.pos + size > bytes.length) fail(`section ${out.length} runs past the end of the file`);
    out.push({ id, body: bytes.subarray(r.pos, r.pos + size) });
    r.pos += size;
  }
  return out;
}

/**
 * The tool's core module, when the component is toolgate's world; else SandboxLoadError
 * WRONG_WORLD naming the first section that differs and what that section holds.
 */
export function toolModuleOf(bytes: Uint8Array, tool: string): Uint8Array {
  const world = `toolgate's world ${WORLD} (as componentize-js ${COMPONENTIZE_JS_VERSION} builds it)`;
  const fail = (rule: string): never => {
    throw new SandboxLoadError('WRONG_WORLD', `tool "${tool}": the component ${rule}`);
  };
  let sections: TopSection[];
  try {
    sections = splitComponent(bytes, fail);
  } catch (err) {
    if (err instanceof SandboxLoadError) throw err;
    return fail(`is malformed: ${messageOf(err)}`);
  }
  let module: Uint8Array | undefined;
  for (const [i, want] of SKELETON.entries()) {
    const got = sections[i];
    if (got === undefined) return fail(`ends after ${sections.length} sections; ${world} has ${SKELETON.length}`);
    const meaning = SECTION_MEANING[want.id] ?? `section kind ${want.id}`;
    if (got.id !== want.id)
      return fail(
        `has ${SECTION_MEANING[got.id] ?? `section kind ${got.id}`} where ${world} has ${meaning} (section ${i})`,
      );
    if (want.digest === TOOL_MODULE) module = got.body;
    else if (sha256Hex(got.body) !== want.digest)
      return fail(
        `differs from ${world} in ${meaning} (section ${i}): it is built against another world or with other imports or exports`,
      );
  }
  if (sections.length > SKELETON.length)
    return fail(`has ${sections.length - SKELETON.length} more sections than ${world}`);
  if (module === undefined) return fail('holds no core module');
  return module;
}
