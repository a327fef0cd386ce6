// A net.connect `lookup` that answers only with the addresses the gate checked and allowed. undici
// keeps the URL's name for the Host header and the TLS servername, but the socket can only go to
// a checked address: no second DNS query happens, so DNS rebinding has nothing to race.
import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from './types.js';

export function pinnedLookup(hostname: string, addresses: readonly ResolvedAddress[]): LookupFunction {
  return (
    name: string,
    options: LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    const wanted = addresses.filter((a) => !options.family || options.family === a.family);
    const first = wanted[0];
    if (name !== hostname || first === undefined) {
      const error: NodeJS.ErrnoException = new Error(`no checked address for ${name}`);
      error.code = 'ENOTFOUND';
      callback(error, '');
      return;
    }
    if (options.all === true)
      callback(
        null,
        wanted.map((a) => ({ address: a.address, family: a.family })),
      );
    else callback(null, first.address, first.family);
  };
}
