/**
 * A mutual-TLS front for a TLS server, for tests of client certificates: it asks every client for a certificate
 * signed by `clientCa`, refuses connections without one, and pipes the rest to the upstream over TLS with the
 * upstream's protocol (`alpn`: h2 for gRPC, http/1.1 for HTTP). Listens on 127.0.0.1, an ephemeral port.
 */
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { generate } from 'selfsigned';
import type { TlsIdentity } from '@k6-triton/server';

/** A self-signed client certificate (its own CA), for clientAuth. */
export async function clientIdentity(): Promise<TlsIdentity> {
  const made = await generate([{ name: 'commonName', value: 'k6-triton test client' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate: new Date(Date.now() - 60_000),
    notAfterDate: new Date(Date.now() + 24 * 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', clientAuth: true },
    ],
  });
  return { cert: made.cert, key: made.private };
}

/** A started front: its port and how to close it. */
export interface MtlsProxy {
  port: number;
  close(): Promise<void>;
}

/** Starts a mutual-TLS front on 127.0.0.1 for the TLS server at `upstreamPort`, which speaks `alpn`. */
export async function startMtlsProxy(
  upstreamPort: number,
  alpn: 'h2' | 'http/1.1',
  identity: TlsIdentity,
  clientCa: string,
): Promise<MtlsProxy> {
  const server = tls.createServer(
    {
      ...identity,
      ca: clientCa,
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: [alpn],
    },
    (client) => {
      const upstream = tls.connect({
        host: '127.0.0.1',
        port: upstreamPort,
        rejectUnauthorized: false,
        ALPNProtocols: [alpn],
      });
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    },
  );
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
