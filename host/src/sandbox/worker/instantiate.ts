// Runs each module's own initialisers the moment it is instantiated, with its WASI already wired to
// its memory. The SDK instantiates the main module and every linked one itself (in dependency order)
// and calls GHC's hs_init or _initialize/_start right after; toolgate renamed those exports at load,
// so it watches WebAssembly.instantiate for the duration of createPlugin and runs them here instead,
// in the order Extism hosts use, once the instance's memory is known to its WASI functions.
import { HS_INIT_EXPORT, INITIALIZE_EXPORT, MEMORY_EXPORT, START_EXPORT } from '../module/host-imports.js';
import type { ModuleUnit } from './protocol.js';

export interface LiveUnit {
  unit: ModuleUnit;
  memory: WebAssembly.Memory | undefined;
}

type Imports = Record<string, Record<string, unknown>>;

function callExport(instance: WebAssembly.Instance, name: string): void {
  (instance.exports[name] as () => void)();
}

/**
 * As an Extism host does: a WASI module runs _initialize (never _start: the SDK's WASI treats it as
 * a reactor), then hs_init; a module without WASI runs hs_init alone when it has one, else
 * _initialize and then _start.
 */
export function runInitialisers(unit: ModuleUnit, instance: WebAssembly.Instance): void {
  if (unit.usesWasi) {
    if (unit.hasInitialize) callExport(instance, INITIALIZE_EXPORT);
    if (unit.hasHsInit) callExport(instance, HS_INIT_EXPORT);
    return;
  }
  if (unit.hasHsInit) return callExport(instance, HS_INIT_EXPORT);
  if (unit.hasInitialize) callExport(instance, INITIALIZE_EXPORT);
  if (unit.hasStart) callExport(instance, START_EXPORT);
}

/** Calls `body` with WebAssembly.instantiate watched for the given modules; restores it after. */
export async function withLiveUnits<T>(live: readonly LiveUnit[], body: () => Promise<T>): Promise<T> {
  const byModule = new Map(live.map((l) => [l.unit.module, l]));
  const original = WebAssembly.instantiate;
  const watched = async (source: unknown, imports?: Imports): Promise<unknown> => {
    const result: unknown = await (original as (s: unknown, i?: Imports) => Promise<unknown>).call(
      WebAssembly,
      source,
      imports,
    );
    const target = source instanceof WebAssembly.Module ? byModule.get(source) : undefined;
    if (target !== undefined && result instanceof WebAssembly.Instance) {
      target.memory = result.exports[MEMORY_EXPORT] as WebAssembly.Memory | undefined;
      runInitialisers(target.unit, result);
    }
    return result;
  };
  Reflect.set(WebAssembly, 'instantiate', watched);
  try {
    return await body();
  } finally {
    Reflect.set(WebAssembly, 'instantiate', original);
  }
}
