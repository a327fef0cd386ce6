// Why an ask was withdrawn when no one answered it: the client that made the call went away
// (architecture.md §3: an approval lives only as long as the call that asked). Transports abort a
// call with this reason; the queue remembers it, so a late answer is told, and the pipeline's
// trail (the audit record) says it.
import { ToolgateError } from '../errors/index.js';

export class ClientGone extends ToolgateError<'CLIENT_GONE'> {
  /** `how`: what the transport saw, e.g. "its HTTP request closed before the answer". */
  constructor(how: string) {
    super('CLIENT_GONE', `withdrawn: the client went away (${how})`);
  }
}
