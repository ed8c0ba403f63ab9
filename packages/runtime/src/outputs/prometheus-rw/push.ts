/** Sends one remote-write body to the endpoint as k6's output does: its headers, a 5 s timeout, 2xx or an error. */
import { readFileSync } from 'node:fs';
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { RwConfig } from './config.ts';

const TIMEOUT_MS = 5000;

/** The request headers k6 sends: the configured ones replace basic auth (as k6's client does), the protocol's last. */
export function pushHeaders(config: RwConfig): OutgoingHttpHeaders {
  const h: OutgoingHttpHeaders = {};
  if (config.basicAuth) {
    const { username, password } = config.basicAuth;
    h['authorization'] = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  }
  const custom = { ...config.headers };
  if (config.bearerToken !== '') custom['Authorization'] = `Bearer ${config.bearerToken}`;
  if (Object.keys(custom).length > 0) {
    for (const k of Object.keys(h)) delete h[k];
    for (const [k, v] of Object.entries(custom)) h[k.toLowerCase()] = v;
  }
  h['user-agent'] = 'k6-prometheus-rw-output';
  h['content-encoding'] = 'snappy';
  h['content-type'] = 'application/x-protobuf';
  h['x-prometheus-remote-write-version'] = '0.1.0';
  return h;
}

/** A sender bound to the configured endpoint; the client certificate is read once, at creation. */
export function createPusher(config: RwConfig): (body: Uint8Array) => Promise<void> {
  const url = new URL(config.url);
  const tls =
    url.protocol === 'https:'
      ? {
          rejectUnauthorized: !config.insecureSkipTLSVerify,
          ...(config.clientCertificate
            ? {
                cert: readFileSync(config.clientCertificate.cert),
                key: readFileSync(config.clientCertificate.key),
              }
            : {}),
        }
      : {};
  const headers = pushHeaders(config);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return (body) =>
    new Promise<void>((resolve, reject) => {
      const failed = (e: Error) =>
        reject(new Error(`HTTP POST request failed: Post "${config.url}": ${e.message}`));
      const req = send(
        url,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': body.byteLength },
          timeout: TIMEOUT_MS,
          ...tls,
        },
        (res) => {
          res.resume();
          res.on('error', failed);
          res.on('end', () => {
            const code = res.statusCode ?? 0;
            if (code >= 200 && code < 300) resolve();
            else reject(new Error(`got status code: ${code} instead expected a 2xx successful status code`));
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('Client.Timeout exceeded while awaiting headers')));
      req.on('error', failed);
      req.end(body);
    });
}
