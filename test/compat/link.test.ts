// module.link: { NAMESPACE: path.wasm } links modules by import namespace as the Extism SDK does for
// a manifest with several wasm items: functions and memory, circular function dependencies, each
// module checked (sha256), patched and capped like the main one, with its own WASI.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManifestError } from '../../host/src/manifest/index.js';
import { BUILD, failureOf, manifest, run, workspace, type Workspace } from './helpers.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
  ws.modules('compat_link_main', 'compat_link_lib', 'compat_link_peer', 'compat_link_clock', 'hostile_min_over_cap');
});
afterEach(async () => ws.close());

const linked = (link: Record<string, unknown>, over: Record<string, unknown> = {}) =>
  manifest({ module: { path: 'compat_link_main.wasm', entry: 'run', link }, output: { encoding: 'base64' }, ...over });
const ALL = { lib: 'compat_link_lib.wasm', peer: 'compat_link_peer.wasm', clock: 'compat_link_clock.wasm' };

describe('module.link links modules by import namespace', () => {
  it('imports of functions and memory resolve across modules, circular calls work, and a linked WASI module sees its own memory', async () => {
    const tool = await ws.tool(linked(ALL));
    // [double(21) = 42 computed through lib -> peer, 1 = the clock landed in clock's own memory]
    expect(Buffer.from(String(await run(tool, {})), 'base64')).toEqual(Buffer.from([42, 1]));
    expect(Buffer.from(String(await run(tool, {})), 'base64')).toEqual(Buffer.from([42, 1]));
  });

  it('an unresolved import of a linked module is refused at load, naming the module, the namespace and the name', async () => {
    const err = await failureOf(ws.tool(linked({ lib: ALL.lib, clock: ALL.clock })));
    expect(err).toBeInstanceOf(ManifestError);
    expect(err.message).toMatch(
      /module\.link "lib": import "peer\.add_one" is from namespace "peer", which nothing provides/,
    );
  });

  it('an import of a name the linked module does not export is refused at load', async () => {
    // "peer" is served by the clock module, which exports ticks but no add_one
    const err = await failureOf(ws.tool(linked({ ...ALL, peer: ALL.clock })));
    expect(err.message).toMatch(/import "peer" "add_one" \(function\) is not exported by module\.link "peer"/);
  });

  it('a linked module whose sha256 differs from the pinned one is refused at load, naming its key', async () => {
    const wrong = createHash('sha256').update('other').digest('hex');
    const err = await failureOf(ws.tool(linked({ ...ALL, peer: { path: ALL.peer, sha256: wrong } })));
    expect(err).toBeInstanceOf(ManifestError);
    expect(err.message).toMatch(/module\.link\.peer\.sha256: does not match .*compat_link_peer\.wasm/);
    const right = createHash('sha256')
      .update(readFileSync(join(BUILD, 'compat_link_peer.wasm')))
      .digest('hex');
    await ws.tool(linked({ ...ALL, peer: { path: ALL.peer, sha256: right } }));
  });

  it('a linked module is capped like the main one: a memory minimum over max_pages is refused', async () => {
    const err = await failureOf(ws.tool(linked({ ...ALL, extra: 'hostile_min_over_cap.wasm' })));
    expect(err.message).toMatch(/module\.link "extra": memory minimum is 300 pages; max_pages is 256/);
  });

  it.each([
    [{ 'extism:host/env': ALL.lib }, /module\.link\["extism:host\/env"\]: key is a namespace toolgate serves itself/],
    [{ main: ALL.lib }, /module\.link\.main: key is a namespace toolgate serves itself/],
    [{ lib: 7 }, /module\.link\.lib: must be one of/],
    [{ lib: { path: ALL.lib, hash: 'x' } }, /module\.link\.lib\.hash: unknown key/],
    [{ lib: 'missing.wasm' }, /module\.link\.lib: module file .*missing\.wasm does not exist/],
  ])('a bad module.link (%j) is refused at load, naming the key path', async (link, rule) => {
    const err = await failureOf(ws.tool(linked(link)));
    expect(err).toBeInstanceOf(ManifestError);
    expect(err.message).toMatch(rule);
  });
});
