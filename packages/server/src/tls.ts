/**
 * The embedded server's TLS identity: a certificate and key read from files, or a self-signed one made at
 * start for the loopback names (localhost, 127.0.0.1, ::1), which clients must trust or skip verifying.
 */
import { readFileSync } from 'node:fs';
import { generate } from 'selfsigned';

/** A PEM certificate and its private key. */
export interface TlsIdentity {
  cert: string;
  key: string;
}

/** Where the identity comes from: both files, or neither (self-signed). */
export interface TlsFiles {
  certFile?: string;
  keyFile?: string;
}

/** Makes a self-signed certificate (RSA 2048, SHA-256, one day) valid for the loopback names. */
export async function selfSignedIdentity(): Promise<TlsIdentity> {
  const notBeforeDate = new Date(Date.now() - 60_000);
  const made = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + 24 * 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { cert: made.cert, key: made.private };
}

/** Reads the identity from its files, or makes a self-signed one when none is given. */
export async function tlsIdentity(files: TlsFiles = {}): Promise<TlsIdentity> {
  const { certFile, keyFile } = files;
  if (!certFile && !keyFile) return selfSignedIdentity();
  if (!certFile || !keyFile) {
    throw new Error(
      `--tls-${certFile ? 'key' : 'cert'} is missing: give both --tls-cert and --tls-key, or neither for a self-signed certificate`,
    );
  }
  return { cert: readPem(certFile, '--tls-cert'), key: readPem(keyFile, '--tls-key') };
}

function readPem(path: string, flag: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(
      `${flag} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; give a readable PEM file`,
    );
  }
  if (!text.includes('-----BEGIN ')) throw new Error(`${flag} ${path}: not a PEM file; give a PEM file`);
  return text;
}
