// What the instruction walkers refuse, each message written once. The JavaScript walker (leb128.ts,
// code.ts, preempt.ts) throws these; the WebAssembly walker (host/walker/walker.ts) reports a code
// and up to two numbers, and wasm-walker.ts turns them into the same error through WALKER_REFUSALS,
// so the two walkers refuse a module in the same words (test/sandbox/wasm-walker.test.ts).
import { ToolgateError } from '../../errors/index.js';

/** An opcode this walker does not know: the module stays uninstrumented (and off the calling thread). */
export class UnknownInstruction extends ToolgateError<'UNKNOWN_INSTRUCTION'> {
  constructor(message: string) {
    super('UNKNOWN_INSTRUCTION', message);
  }
}

/** One error per refusal; `at` is a byte offset in what the reader reads. */
export const refuse = {
  endOfData: (at: number): Error => new Error(`unexpected end of data at byte ${at}`),
  lebOver10Bytes: (at: number): Error => new Error(`LEB128 longer than 10 bytes at byte ${at}`),
  u32Overflow: (at: number): Error => new Error(`LEB128 value over 32 bits at byte ${at}`),
  u32Over5Bytes: (at: number): Error => new Error(`LEB128 longer than 5 bytes at byte ${at}`),
  runsPastEnd: (length: number, at: number): Error => new Error(`length ${length} at byte ${at} runs past the end`),
  unknownOpcode: (op: number): Error => new UnknownInstruction(`unknown instruction 0x${op.toString(16)}`),
  /** An unknown sub-opcode after a prefix byte (0xfc, 0xfd, 0xfe). */
  unknownPrefixed: (prefix: number, op: number): Error =>
    new UnknownInstruction(`unknown instruction 0x${prefix.toString(16)} ${op}`),
  delegateOutsideTry: (): Error => new Error('delegate outside a try'),
  noSuchFunction: (index: number): Error => new Error(`function ${index} does not exist`),
  noSuchGlobal: (index: number): Error => new Error(`global ${index} does not exist`),
  bodyTail: (): Error => new Error('bytes after the end of a function body'),
  moreBodies: (): Error => new Error('more function bodies than functions'),
  sectionTail: (): Error => new Error('bytes after the end of a section'),
} as const;

/** A refusal code of the WebAssembly walker: its name there, and the error it stands for. */
interface WalkerRefusal {
  name: string;
  error(a: number, b: number): Error;
}

/**
 * The WebAssembly walker's refusal codes, by number: host/walker/walker.ts declares the same names
 * with the same numbers (test/sandbox/walker-refusals.test.ts holds them equal). Code 0 is no
 * refusal (a trap the walker did not mean).
 */
export const WALKER_REFUSALS: ReadonlyMap<number, WalkerRefusal> = new Map([
  [1, { name: 'END_OF_DATA', error: (a) => refuse.endOfData(a) }],
  [2, { name: 'LEB_OVER_10', error: (a) => refuse.lebOver10Bytes(a) }],
  [3, { name: 'U32_OVERFLOW', error: (a) => refuse.u32Overflow(a) }],
  [4, { name: 'U32_OVER_5', error: (a) => refuse.u32Over5Bytes(a) }],
  [5, { name: 'RUNS_PAST_END', error: (a, b) => refuse.runsPastEnd(a, b) }],
  [6, { name: 'UNKNOWN_OP', error: (a) => refuse.unknownOpcode(a) }],
  [7, { name: 'UNKNOWN_FC', error: (a) => refuse.unknownPrefixed(0xfc, a) }],
  [8, { name: 'UNKNOWN_FD', error: (a) => refuse.unknownPrefixed(0xfd, a) }],
  [9, { name: 'UNKNOWN_FE', error: (a) => refuse.unknownPrefixed(0xfe, a) }],
  [10, { name: 'DELEGATE_OUTSIDE_TRY', error: () => refuse.delegateOutsideTry() }],
  [11, { name: 'NO_SUCH_FUNCTION', error: (a) => refuse.noSuchFunction(a) }],
  [12, { name: 'NO_SUCH_GLOBAL', error: (a) => refuse.noSuchGlobal(a) }],
  [13, { name: 'BODY_TAIL', error: () => refuse.bodyTail() }],
  [14, { name: 'MORE_BODIES', error: () => refuse.moreBodies() }],
  [15, { name: 'SECTION_TAIL', error: () => refuse.sectionTail() }],
] satisfies [number, WalkerRefusal][]);

/** Not a refusal: the rewritten section outgrew the walker's memory, and the JavaScript walker does it. */
export const WALKER_OUT_OF_MEMORY = 16;
