// Plugins importing host functions only an embedder can give (extism:host/user.*, module "user")
// are refused when the manifest loads, with the imports named, never at call time.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManifestError } from '../../host/src/manifest/index.js';
import { failureOf, manifest, workspace, type Workspace } from './helpers.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
  ws.modules('compat_user_import', 'compat_echo');
});
afterEach(async () => ws.close());

describe('embedder host functions are refused at load', () => {
  it('an import from extism:host/user is refused at load, naming the import and why', async () => {
    const err = await failureOf(ws.tool(manifest({ module: { path: 'compat_user_import.wasm', entry: 'run' } })));
    expect(err).toBeInstanceOf(ManifestError);
    expect((err as ManifestError).code).toBe('SANDBOX_LOAD');
    expect(err.message).toMatch(
      /import "extism:host\/user\.hello_world" is from namespace "extism:host\/user": a host function only an embedding application can provide/,
    );
  });

  it('the same import is refused when a link serves only the other namespace ("user"), naming the one left', async () => {
    // compat_echo serves "extism:host/user" by link but exports no hello_world
    const err = await failureOf(
      ws.tool(
        manifest({
          module: { path: 'compat_user_import.wasm', entry: 'run', link: { 'extism:host/user': 'compat_echo.wasm' } },
        }),
      ),
    );
    expect(err.message).toMatch(
      /import "user\.test" is from namespace "user": a host function only an embedding application can provide/,
    );
  });
});
