// tsconfig's lib (ES2023, no DOM) has no WebAssembly namespace and no Atomics.waitAsync, though
// Node 20 has both. This declares the part the sandbox uses. (Better placed in a shared types
// folder or solved with lib "ES2024" + a WebAssembly lib; see the sandbox report.)
declare global {
  namespace WebAssembly {
    interface ModuleImportDescriptor {
      module: string;
      name: string;
      kind: string;
    }
    interface ModuleExportDescriptor {
      name: string;
      kind: string;
    }
    interface Module {}
    var Module: {
      prototype: Module;
      new (bytes: ArrayBufferView | ArrayBuffer): Module;
      imports(module: Module): ModuleImportDescriptor[];
      exports(module: Module): ModuleExportDescriptor[];
    };
    interface Instance {
      readonly exports: Record<string, unknown>;
    }
    var Instance: {
      prototype: Instance;
      new (module: Module, imports?: Record<string, Record<string, unknown>>): Instance;
    };
    interface Memory {
      readonly buffer: ArrayBuffer;
      grow(delta: number): number;
    }
    var Memory: {
      prototype: Memory;
      new (descriptor: { initial: number; maximum?: number; shared?: boolean }): Memory;
    };
    interface Global {
      value: unknown;
      valueOf(): unknown;
    }
    var Global: { prototype: Global; new (descriptor: { value: string; mutable?: boolean }, v?: unknown): Global };
    interface RuntimeError extends Error {}
    var RuntimeError: { prototype: RuntimeError; new (message?: string): RuntimeError };
    interface CompileError extends Error {}
    var CompileError: { prototype: CompileError; new (message?: string): CompileError };
    interface LinkError extends Error {}
    var LinkError: { prototype: LinkError; new (message?: string): LinkError };
    function compile(bytes: ArrayBufferView | ArrayBuffer): Promise<Module>;
    function validate(bytes: ArrayBufferView | ArrayBuffer): boolean;
    function instantiate(module: Module, imports?: Record<string, Record<string, unknown>>): Promise<Instance>;
  }
  interface Atomics {
    waitAsync(
      typedArray: Int32Array,
      index: number,
      value: number,
      timeout?: number,
    ): { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
  }
}
export {};
