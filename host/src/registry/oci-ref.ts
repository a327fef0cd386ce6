// OCI references: `oci://host[:port]/repo/path[:tag|@sha256:hex]`.
import { RegistryError } from './errors.js';

export interface OciRef {
  registry: string;
  repository: string;
  /** A tag or a `sha256:` digest. */
  reference: string;
  text: string;
}

const REPO = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/** `oci://host[:port]/repo/path[:tag|@sha256:hex]` (tag defaults to `latest`). */
export function parseOciRef(text: string): OciRef {
  const bad = (rule: string): RegistryError => new RegistryError('BAD_REFERENCE', `${text}: ${rule}`);
  if (!text.startsWith('oci://')) throw bad('must start with oci://');
  const rest = text.slice('oci://'.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) throw bad('must be oci://host[:port]/repository[:tag]');
  const registry = rest.slice(0, slash);
  let path = rest.slice(slash + 1);
  let reference = 'latest';
  const at = path.indexOf('@');
  if (at >= 0) {
    reference = path.slice(at + 1);
    path = path.slice(0, at);
    if (!/^sha256:[0-9a-f]{64}$/.test(reference)) throw bad('a digest reference must be @sha256:<64 hex>');
  } else {
    const colon = path.lastIndexOf(':');
    if (colon >= 0) {
      reference = path.slice(colon + 1);
      path = path.slice(0, colon);
      if (!TAG.test(reference)) throw bad(`tag "${reference}" is not a valid tag`);
    }
  }
  if (!REPO.test(path)) throw bad(`repository "${path}" is not a valid repository name (lowercase, / separated)`);
  return { registry, repository: path, reference, text };
}
