// How a redirect changes the next request. Whether the next hop may be contacted at all is not
// decided here: the gate checks every hop like a first request.

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export function isRedirect(status: number): boolean {
  return REDIRECT_STATUSES.has(status);
}

/** Method, body and headers for the next hop, as browsers do it (fetch spec, 4.4 HTTP-redirect). */
export function redirectedRequest(
  from: URL,
  to: URL,
  status: number,
  method: string,
  body: Uint8Array | undefined,
  headers: Record<string, string>,
): { method: string; body: Uint8Array | undefined; headers: Record<string, string> } {
  const next = { ...headers };
  let nextMethod = method;
  let nextBody = body;
  if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
    nextMethod = 'GET';
    nextBody = undefined;
    for (const h of ['content-type', 'content-encoding', 'content-language', 'content-location']) delete next[h];
  }
  // Credentials meant for one origin are not handed to another.
  if (from.origin !== to.origin) {
    delete next['authorization'];
    delete next['cookie'];
  }
  return { method: nextMethod, body: nextBody, headers: next };
}
