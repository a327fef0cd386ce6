// Scaffolds for `toolgate new`: the files of a buildable tool folder in each PDK language.
// Sources and build files are written from the templates here; the PDK helpers (toolgate.h,
// toolgate_pdk.rs, the AssemblyScript lib, the JavaScript world and runtime) are copied from pdk-examples/, so a scaffold always
// carries the same helpers the bundled examples are built and tested with.
import { assemblyscriptTemplate } from './assemblyscript.js';
import { cTemplate } from './c.js';
import { javascriptTemplate, typescriptTemplate } from './javascript.js';
import { manifestYaml, readme, testScript } from './common.js';
import { hyperAssemblyscriptTemplate } from './hyper-as.js';
import { hyperCTemplate } from './hyper-c.js';
import { hyperManifestYaml, hyperReadme, hyperTestScript } from './hyper-common.js';
import { hyperRustTemplate } from './hyper-rust.js';
import { rustTemplate } from './rust.js';
import type { LanguageTemplate, ScaffoldContext, ScaffoldFile } from './types.js';
import { watTemplate } from './wat.js';

export type { ScaffoldContext, ScaffoldFile, LanguageTemplate } from './types.js';
export { shellQuote } from './common.js';

export const LANGUAGES = ['as', 'c', 'rust', 'wat', 'ts', 'js'] as const;
export type Language = (typeof LANGUAGES)[number];

const TEMPLATES = {
  as: assemblyscriptTemplate,
  c: cTemplate,
  rust: rustTemplate,
  wat: watTemplate,
  ts: typescriptTemplate,
  js: javascriptTemplate,
} as const satisfies Record<Language, LanguageTemplate>;

/** The module interfaces a scaffold can follow: toolgate's wire ABI, or hyper-mcp's v2 plugin interface. */
export const ABIS = ['toolgate', 'hyper-mcp'] as const;
export type Abi = (typeof ABIS)[number];

/** The languages with a hyper-mcp scaffold. */
const HYPER_TEMPLATES: Partial<Record<Language, LanguageTemplate>> = {
  as: hyperAssemblyscriptTemplate,
  c: hyperCTemplate,
  rust: hyperRustTemplate,
};
export const HYPER_LANGUAGES = Object.keys(HYPER_TEMPLATES) as Language[];

/** Every file of a new tool folder (relative paths), helpers included. */
export function scaffoldFiles(lang: Language, ctx: ScaffoldContext, abi: Abi = 'toolgate'): ScaffoldFile[] {
  if (abi === 'hyper-mcp') {
    const h = HYPER_TEMPLATES[lang];
    if (h === undefined) throw new Error(`no hyper-mcp scaffold for ${lang}`);
    return [
      ...h.files(ctx),
      { path: `${ctx.tool}.yaml`, content: hyperManifestYaml(ctx, h) },
      { path: 'test.sh', content: hyperTestScript(ctx), executable: true },
      { path: 'README.md', content: hyperReadme(ctx, h) },
    ];
  }
  const t = TEMPLATES[lang];
  return [
    ...t.files(ctx),
    { path: `${ctx.tool}.yaml`, content: manifestYaml(ctx, t) },
    { path: 'test.sh', content: testScript(ctx), executable: true },
    { path: 'README.md', content: readme(ctx, t) },
  ];
}

export function languageLabel(lang: Language): string {
  return TEMPLATES[lang].label;
}
