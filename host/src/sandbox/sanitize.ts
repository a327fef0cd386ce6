// Text that came out of a module (errors, logs) is untrusted: secrets are replaced, control
// characters cannot forge log lines or terminal escapes, host paths do not leak, size is bounded.

export const MAX_MESSAGE_BYTES = 1024;
const REDACTED = '[REDACTED]';
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;
// an absolute POSIX path of two or more segments, standing on its own or after file://
const HOST_PATH = /(?:file:\/\/|(?<=^|[\s'"(=,]))(?:\/[\w.@+~-]+){2,}\/?/g;

export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join(REDACTED);
  return out;
}

/** For one log line: secrets out, control characters out. */
export function cleanLogLine(text: string, secrets: readonly string[]): string {
  return redact(text, secrets).replace(CONTROL, ' ');
}

/** For an error message that reaches a caller or a model: also no host paths, at most 1 KiB. */
export function sanitizeMessage(text: string, secrets: readonly string[], maxBytes = MAX_MESSAGE_BYTES): string {
  const clean = cleanLogLine(text, secrets).replace(HOST_PATH, '<path>').trim();
  return truncateUtf8(clean.length > 0 ? clean : 'the module failed without a message', maxBytes);
}

export function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const ellipsis = '…';
  const bytes = Buffer.from(text).subarray(0, maxBytes - Buffer.byteLength(ellipsis));
  // drop a code point cut in half (decoder replaces it with U+FFFD)
  return bytes.toString('utf8').replace(/\uFFFD$/, '') + ellipsis;
}
