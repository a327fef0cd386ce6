// Reads a response body up to a byte cap. It never buffers more than cap + one chunk: past the
// cap it destroys the stream, which makes undici abort the connection, so a huge or endless
// response costs the host at most the cap.
import type { Readable } from 'node:stream';
import { ToolgateError } from '../../errors/index.js';

/** Caught by the HTTP gate, whose outcome for the module carries this message. */
export class ResponseTooLarge extends ToolgateError<'RESPONSE_TOO_LARGE'> {
  constructor(readonly cap: number) {
    super('RESPONSE_TOO_LARGE', `response larger than ${cap} bytes`);
  }
}

export async function readCapped(body: Readable, cap: number): Promise<Uint8Array> {
  body.on('error', () => undefined); // the loop below sees errors; this keeps destroy() from crashing us
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    const buf: Buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    total += buf.byteLength;
    if (total > cap) {
      body.destroy();
      throw new ResponseTooLarge(cap);
    }
    chunks.push(buf);
  }
  const joined = Buffer.concat(chunks, total);
  return new Uint8Array(joined.buffer, joined.byteOffset, joined.byteLength);
}
