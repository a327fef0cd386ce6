// What a language template gives the scaffolder.

export interface ScaffoldFile {
  /** Relative to the new tool folder, with '/' separators. */
  path: string;
  content: string | Uint8Array;
  executable?: boolean;
}

export interface ScaffoldContext {
  /** The tool name (already checked against the tool name pattern). */
  tool: string;
  /** Exact versions of build-time packages (from toolgate's package.json), e.g. assemblyscript. */
  buildPins: Readonly<Record<string, string>>;
  /** Reads a PDK helper from pdk-examples/ (path relative to pdk-examples/). */
  readHelper(path: string): Uint8Array;
}

export interface LanguageTemplate {
  label: string;
  /** Source, Makefile and copied helpers. */
  files(ctx: ScaffoldContext): ScaffoldFile[];
  /** The manifest's capabilities.memory.max_pages: the module's declared minimum plus headroom. */
  maxPages: number;
  /** How to build, for the README. */
  buildNote: string;
  /** module.abi of the manifest: a component of toolgate's world instead of an Extism export. */
  abi?: 'component';
}
