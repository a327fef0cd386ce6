// The publisher side: keygen, pack (optionally signed) and publish to a directory index or OCI.
import { readFile, stat, writeFile, open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { digestOf } from './digest.js';
import { RegistryError } from './errors.js';
import { replaceFile } from './fs-atomic.js';
import { publishToDir } from './http-index.js';
import { parseOciRef, pushOci } from './oci.js';
import {
  packageFromDir,
  packageFromTgzFile,
  packageToTgz,
  statementOf,
  withSignature,
  type ToolPackage,
} from './package.js';
import { generateSigningKey, loadPrivateKey, signPackage } from './signing.js';

/** Writes an ed25519 private key (0600, never overwritten unless force) and `<file>.pub`. */
export async function keygen(
  fileArg: string,
  force: boolean,
): Promise<{ keyId: string; privateFile: string; publicFile: string }> {
  const privateFile = resolve(fileArg);
  const publicFile = `${privateFile}.pub`;
  const key = generateSigningKey();
  let handle;
  try {
    handle = await open(privateFile, force ? 'w' : 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      throw new RegistryError('BAD_CONFIG', `${privateFile}: already exists (pass --force to overwrite)`);
    throw err;
  }
  try {
    await handle.chmod(0o600); // an existing file keeps its old mode on open
    await handle.writeFile(key.privatePem);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await writeFile(publicFile, key.publicPem, { mode: 0o644 });
  return { keyId: key.keyId, privateFile, publicFile };
}

export async function signWithKeyFile(pkg: ToolPackage, keyFileArg: string): Promise<ToolPackage> {
  const keyFile = resolve(keyFileArg);
  const pem = await readFile(keyFile, 'utf8').catch((err: Error) => {
    throw new RegistryError('BAD_KEY', `${keyFile}: cannot read key (${err.message})`);
  });
  const key = loadPrivateKey(pem, keyFile);
  return withSignature(pkg, signPackage(key, statementOf(pkg)));
}

/** A package from a tool folder or a .tgz. */
export async function loadPackage(pathArg: string): Promise<ToolPackage> {
  const path = resolve(pathArg);
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new RegistryError('NOT_FOUND', `${path}: no such file or folder`);
  return info.isDirectory() ? packageFromDir(path) : packageFromTgzFile(path);
}

export async function packToFile(
  dir: string,
  out: string | undefined,
  keyFile: string | undefined,
): Promise<{ file: string; digest: string; pkg: ToolPackage }> {
  let pkg = await loadPackage(dir);
  if (keyFile !== undefined) pkg = await signWithKeyFile(pkg, keyFile);
  const tgz = packageToTgz(pkg);
  const file = resolve(out ?? `${pkg.name}-${pkg.version}.tgz`);
  await replaceFile(file, tgz);
  return { file, digest: digestOf(tgz), pkg };
}

export interface PublishResult {
  target: string;
  name: string;
  version: string;
  signer?: string;
  /** The index file or the OCI manifest digest. */
  location: string;
}

export async function publishPackage(
  pkg: ToolPackage,
  target: string,
  opts: { insecure: boolean; force: boolean },
): Promise<PublishResult> {
  const common = {
    target,
    name: pkg.name,
    version: pkg.version,
    ...(pkg.signature ? { signer: pkg.signature.signer } : {}),
  };
  if (target.startsWith('oci://')) {
    const digest = await pushOci(parseOciRef(target), pkg, { insecure: opts.insecure });
    return { ...common, location: digest };
  }
  if (/^[a-z]+:\/\//i.test(target)) {
    throw new RegistryError(
      'BAD_REFERENCE',
      `${target}: publish to an HTTP index by publishing to the folder your web server serves (--to DIR), or to oci://`,
    );
  }
  const res = await publishToDir(target, pkg, { force: opts.force });
  return { ...common, location: res.indexFile };
}
