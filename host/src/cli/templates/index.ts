// Scaffolds for `toolgate new`: the files of a buildable tool folder in each PDK language.
// Sources and build files are written from the templates here; the PDK helpers (toolgate.h,
// toolgate_pdk.rs, the AssemblyScript lib, the JavaScript world and runtime) are copied from pdk-examples/, so a scaffold always
// carries the same helpers the bundled examples are built and tested with.
import { assemblyscriptTemplate } from './assemblyscript.js';
import { cTemplate } from './c.js';
import { javascriptTemplate, typescriptTemplate } from './javascript.js';
import { manifestYaml, readme, testScript } from './common.js';
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

/** Every file of a new tool folder (relative paths), helpers included. */
export function scaffoldFiles(lang: Language, ctx: ScaffoldContext): ScaffoldFile[] {
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
