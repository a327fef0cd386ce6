// The --state URL: redis://HOST:PORT[/DB] (rediss:// for TLS), checked before anything connects.
// Credentials in the URL (redis://:PASSWORD@HOST:PORT) are allowed and never printed.

export interface StateUrl {
  /** What node-redis connects to. */
  readonly url: string;
  /** The URL with any credentials cut out: what messages and logs name. */
  readonly shown: string;
  readonly db: number;
}

/** Throws an Error naming the URL (without credentials) and what is wrong with it. */
export function parseStateUrl(text: string): StateUrl {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new Error(`--state ${JSON.stringify(redact(text))}: not a URL; give redis://HOST:PORT[/DB]`);
  }
  const shown = redactUrl(u);
  const bad = (why: string): Error => new Error(`--state ${shown}: ${why}; give redis://HOST:PORT[/DB]`);
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw bad(`the scheme must be redis: or rediss: (got ${u.protocol})`);
  if (u.hostname === '') throw bad('no host');
  if (u.port === '') throw bad('no port');
  if (u.search !== '' || u.hash !== '') throw bad('no query or fragment is taken');
  const path = u.pathname.replace(/^\//, '');
  if (path !== '' && !/^\d{1,2}$/.test(path)) throw bad(`the path must be a database number 0-15 (got /${path})`);
  const db = path === '' ? 0 : Number(path);
  if (db > 15) throw bad(`the database number must be 0-15 (got ${db})`);
  return { url: u.toString(), shown, db };
}

function redactUrl(u: URL): string {
  const copy = new URL(u.toString());
  if (copy.password !== '') copy.password = '***';
  return copy.toString();
}

function redact(text: string): string {
  return text.replace(/\/\/[^@/]*@/, '//***@');
}
