// The publisher keys this store trusts, by a local name the user chose. A package is trusted when its
// signer key id is in here and the signature verifies with that key.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { parseJsonDocument, RegistryError } from './errors.js';
import { replaceFile } from './fs-atomic.js';
import { keyIdOf, loadPublicKey } from './signing.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const trustFileSchema = z.strictObject({
  version: z.literal(1),
  keys: z.record(z.string().regex(NAME), z.strictObject({ keyId: z.string(), publicKey: z.string() })),
});
type TrustFile = z.infer<typeof trustFileSchema>;

export interface TrustedKey {
  name: string;
  keyId: string;
  publicKey: string;
}

async function readTrust(file: string): Promise<TrustFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, keys: {} };
    throw err;
  }
  return parseJsonDocument(text, trustFileSchema, file, 'BAD_CONFIG', 'trust file');
}

export async function listTrusted(file: string): Promise<TrustedKey[]> {
  const trust = await readTrust(file);
  return Object.entries(trust.keys)
    .map(([name, k]) => ({ name, keyId: k.keyId, publicKey: k.publicKey }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

export async function addTrusted(file: string, name: string, publicPem: string, keyFile: string): Promise<TrustedKey> {
  if (!NAME.test(name)) throw new RegistryError('BAD_CONFIG', `trust name "${name}" must match ${NAME.source}`);
  const keyId = keyIdOf(loadPublicKey(publicPem, keyFile));
  const trust = await readTrust(file);
  trust.keys[name] = { keyId, publicKey: publicPem };
  await replaceFile(file, `${JSON.stringify(trust, null, 2)}\n`);
  return { name, keyId, publicKey: publicPem };
}

export async function removeTrusted(file: string, name: string): Promise<boolean> {
  const trust = await readTrust(file);
  if (!(name in trust.keys)) return false;
  delete trust.keys[name];
  await replaceFile(file, `${JSON.stringify(trust, null, 2)}\n`);
  return true;
}

export async function findTrustedByKeyId(file: string, keyId: string): Promise<TrustedKey | undefined> {
  return (await listTrusted(file)).find((k) => k.keyId === keyId);
}
