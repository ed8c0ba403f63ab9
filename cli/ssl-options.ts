/**
 * perf_analyzer's --ssl-* flags, accepted with its meaning by the commands that send load (bench, capacity,
 * sweep) and mapped onto the run's own TLS settings: TLS_CA, INSECURE_SKIP_TLS_VERIFY, a grpcs:// gRPC URL (or
 * the embedded server's TLS) and a client certificate (TLS_CLIENT_CERT, TLS_CLIENT_KEY: k6's tlsAuth). What k6
 * cannot do (a DER file, the name check off while the certificate is verified) is refused in one line naming
 * the fix.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { readOr } from '../lib/settings/read.ts';
import { S } from '../lib/settings/schema.ts';

/** The flags, as commander names them, with perf_analyzer's spelling for messages. */
const SSL_FLAGS = {
  sslHttpsVerifyPeer: '--ssl-https-verify-peer',
  sslHttpsVerifyHost: '--ssl-https-verify-host',
  sslHttpsCaCertificatesFile: '--ssl-https-ca-certificates-file',
  sslHttpsClientCertificateFile: '--ssl-https-client-certificate-file',
  sslHttpsClientCertificateType: '--ssl-https-client-certificate-type',
  sslHttpsPrivateKeyFile: '--ssl-https-private-key-file',
  sslHttpsPrivateKeyType: '--ssl-https-private-key-type',
  sslGrpcUseSsl: '--ssl-grpc-use-ssl',
  sslGrpcRootCertificationsFile: '--ssl-grpc-root-certifications-file',
  sslGrpcPrivateKeyFile: '--ssl-grpc-private-key-file',
  sslGrpcCertificateChainFile: '--ssl-grpc-certificate-chain-file',
} as const;

/** Adds perf_analyzer's --ssl-* flags to a command. */
export function addSslOptions(command: Command): Command {
  return command
    .option('--ssl-https-verify-peer <0|1>', "perf_analyzer's: 0 doesn't verify the server's certificate")
    .option(
      '--ssl-https-verify-host <0|1|2>',
      "perf_analyzer's: 0 doesn't check its name (with verify-peer 0)",
    )
    .option('--ssl-https-ca-certificates-file <file>', "perf_analyzer's: CA bundle to trust (as --tls-ca)")
    .option(
      '--ssl-https-client-certificate-file <file>',
      "perf_analyzer's: client certificate, PEM (TLS_CLIENT_CERT)",
    )
    .option('--ssl-https-client-certificate-type <PEM|DER>', "perf_analyzer's: its type; PEM only")
    .option('--ssl-https-private-key-file <file>', "perf_analyzer's: its private key, PEM (TLS_CLIENT_KEY)")
    .option('--ssl-https-private-key-type <PEM|DER>', "perf_analyzer's: its type; PEM only")
    .option('--ssl-grpc-use-ssl', "perf_analyzer's: gRPC over TLS (grpcs://; the embedded server: --tls)")
    .option('--ssl-grpc-root-certifications-file <file>', "perf_analyzer's: root certificates (as --tls-ca)")
    .option('--ssl-grpc-private-key-file <file>', "perf_analyzer's: gRPC client key (TLS_CLIENT_KEY)")
    .option(
      '--ssl-grpc-certificate-chain-file <file>',
      "perf_analyzer's: gRPC client chain (TLS_CLIENT_CERT)",
    );
}

type Flags = Record<string, unknown>;

function given(flags: Flags, name: keyof typeof SSL_FLAGS): string | undefined {
  const value = flags[name];
  return value === undefined || value === false ? undefined : String(value);
}

function oneOf(flags: Flags, name: keyof typeof SSL_FLAGS, allowed: string[]): string | undefined {
  const value = given(flags, name);
  if (value !== undefined && !allowed.includes(value))
    throw new Error(
      `invalid ${SSL_FLAGS[name]} ${value}; expected ${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)} (perf_analyzer's values)`,
    );
  return value;
}

/**
 * The one file the runtime is given for both protocols (the CA, or the client certificate or key): the setting
 * already made and perf_analyzer's HTTPS and gRPC flags for it must name the same file.
 */
function oneFile(
  flags: Flags,
  current: string | undefined,
  names: (keyof typeof SSL_FLAGS)[],
): string | undefined {
  const named: [string, string][] = [];
  if (current) named.push([current === flags.tlsCa ? '--tls-ca' : 'the environment', current]);
  for (const name of names) {
    const file = given(flags, name);
    if (file === undefined) continue;
    if (!existsSync(file)) throw new Error(`${SSL_FLAGS[name]} ${file}: no such file; give a PEM file`);
    named.push([SSL_FLAGS[name], resolve(file)]);
  }
  const files = [...new Set(named.map(([, file]) => resolve(file)))];
  if (files.length > 1) {
    throw new Error(
      `${named.map(([flag]) => flag).join(' and ')} name different files; the run has one for HTTP and gRPC: give one (concatenate PEM files)`,
    );
  }
  return files[0];
}

/**
 * The run settings perf_analyzer's --ssl-* flags make, over `env` (the settings from the other flags and the
 * environment); throws one line for a value or a combination the runtimes cannot honour.
 */
export function sslSettings(flags: Flags, env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['sslHttpsClientCertificateType', 'sslHttpsPrivateKeyType'] as const) {
    if (oneOf(flags, name, ['PEM', 'DER']) === 'DER')
      throw new Error(
        `${SSL_FLAGS[name]} DER is not supported: k6 reads PEM only; convert the file (openssl x509 or openssl pkey -inform DER -outform PEM) and give PEM`,
      );
  }
  const peer = oneOf(flags, 'sslHttpsVerifyPeer', ['0', '1']);
  const host = oneOf(flags, 'sslHttpsVerifyHost', ['0', '1', '2']);
  const skipAsked = readOr(env, S.INSECURE_SKIP_TLS_VERIFY, false);
  if (peer === '1' && skipAsked)
    throw new Error('--ssl-https-verify-peer 1 and --insecure-skip-tls-verify disagree; give one');
  const skip = peer === '0' || skipAsked;
  if (host === '0' && !skip)
    throw new Error(
      "--ssl-https-verify-host 0 cannot be honoured alone: k6 checks the server's name whenever it verifies its certificate; add --ssl-https-verify-peer 0 to verify neither",
    );
  if (peer === '0') out.INSECURE_SKIP_TLS_VERIFY = '1';
  const ca = oneFile(flags, env.TLS_CA, ['sslHttpsCaCertificatesFile', 'sslGrpcRootCertificationsFile']);
  if (ca !== undefined) out.TLS_CA = ca;
  if (flags.sslGrpcUseSsl) Object.assign(out, grpcOverTls(env));
  const cert = oneFile(flags, env.TLS_CLIENT_CERT, [
    'sslHttpsClientCertificateFile',
    'sslGrpcCertificateChainFile',
  ]);
  const key = oneFile(flags, env.TLS_CLIENT_KEY, ['sslHttpsPrivateKeyFile', 'sslGrpcPrivateKeyFile']);
  if ((cert === undefined) !== (key === undefined))
    throw new Error(
      `a client ${cert === undefined ? 'certificate' : 'private key'} is missing: give both --ssl-https-client-certificate-file and --ssl-https-private-key-file (or the gRPC pair)`,
    );
  if (cert !== undefined) out.TLS_CLIENT_CERT = cert;
  if (key !== undefined) out.TLS_CLIENT_KEY = key;
  return out;
}

/** gRPC over TLS: the given gRPC endpoint as grpcs://, or the embedded server started with TLS. */
function grpcOverTls(env: Record<string, string>): Record<string, string> {
  const url = env.TRITON_GRPC_URL;
  if (url !== undefined) return { TRITON_GRPC_URL: `grpcs://${url.replace(/^grpcs?:\/\//, '')}` };
  if (env.TRITON_URL !== undefined)
    throw new Error(
      '--ssl-grpc-use-ssl needs the gRPC endpoint: give --grpc-url host:port (TRITON_GRPC_URL)',
    );
  return { TLS: '1' };
}
