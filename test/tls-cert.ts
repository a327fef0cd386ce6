// A self-signed certificate for a test's https server on 127.0.0.1, made with openssl (an EC P-256
// key, valid one day); a client trusts it through NODE_EXTRA_CA_CERTS or a `ca` option.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** Writes key.pem and cert.pem into `dir` for `subject` ("/CN=...") and `altNames` ("IP:127.0.0.1"); returns their paths. */
export function selfSignedCert(dir: string, subject: string, altNames: string): { keyFile: string; certFile: string } {
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      subject,
      '-addext',
      `subjectAltName=${altNames}`,
    ],
    { stdio: 'ignore', timeout: 20_000 },
  );
  return { keyFile, certFile };
}
