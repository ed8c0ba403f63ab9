/**
 * k6/net/grpc on Node (@grpc/grpc-js, protobufjs): Client.load in the init context, connect, asyncInvoke,
 * close, Stream and the status constants, with k6's JSON mapping of messages and k6's metrics.
 * invoke() is synchronous in k6 and throws here, naming asyncInvoke (VUs share one event loop).
 * connect() returns a Promise<true> (await it, or not: the first asyncInvoke waits for it), because
 * dialing cannot block this event loop either. One Client may serve several VUs: connections are per VU.
 */
import { refuseOtherDial } from '../transport/dial-policy.ts';
import { performance } from 'node:perf_hooks';
import { createPrivateKey } from 'node:crypto';
import tls from 'node:tls';
import * as grpcjs from '@grpc/grpc-js';
import { type ClientTls, tlsConnectOptions } from '../transport/tls-client.ts';
import { ownerVu, type VuState } from '../vu-context.ts';
import { parseDuration_ms } from '@k6-triton/lib/duration.ts';
import {
  callSamples,
  callTags,
  DEFAULT_INVOKE_TIMEOUT_MS,
  fromMetadata,
  metadataRecord,
  cachedCallParams,
  passBuffer,
  statusMessage,
  toMetadata,
} from './grpc-call.ts';
import { EncodeBuffers, encodedFrozen, messageOut } from './grpc-json.ts';
import { UnaryChannel } from '../transport/grpc-unary.ts';
import { wirePath } from '../transport/wire-choice.ts';
import { reflectMethods } from './grpc-reflect.ts';
import {
  HEALTH_CHECK,
  HEALTH_CHECK_IS_ASYNC,
  HealthCheckNotServing,
  HealthCheckServiceUnkown,
  HealthCheckServing,
  HealthCheckUnknown,
  type HealthCheckStatus,
  healthCheckError,
  healthStatus,
} from './grpc-health.ts';
import { loadProtos, type MethodDef, type MethodInfo, methodInfo } from './grpc-protos.ts';
import { openStream, Stream, waitForStreams } from './grpc-stream.ts';

export { setProtoBaseDir } from './grpc-protos.ts';
export { Stream, waitForStreams };

/** gRPC status codes, with k6's constant names. */
export const StatusOK = 0;
export const StatusCanceled = 1;
export const StatusUnknown = 2;
export const StatusInvalidArgument = 3;
export const StatusDeadlineExceeded = 4;
export const StatusNotFound = 5;
export const StatusAlreadyExists = 6;
export const StatusPermissionDenied = 7;
export const StatusResourceExhausted = 8;
export const StatusFailedPrecondition = 9;
export const StatusAborted = 10;
export const StatusOutOfRange = 11;
export const StatusUnimplemented = 12;
export const StatusInternal = 13;
export const StatusUnavailable = 14;
export const StatusDataLoss = 15;
export const StatusUnauthenticated = 16;
export { HealthCheckNotServing, HealthCheckServiceUnkown, HealthCheckServing, HealthCheckUnknown };

/** k6's gRPC Response. */
export interface GrpcResponse {
  status: number;
  message: unknown;
  headers: Record<string, string[]>;
  trailers: Record<string, string[]>;
  error: { code: number; message: string; details: unknown[] } | null;
}

/** One VU's connection made by Client.connect. */
export interface Connection {
  addr: string;
  /** grpc-js, for streams, reflection and TLS; opened on first use where unary calls go through `unary`. */
  readonly client: grpcjs.Client;
  /** Plaintext connections: unary calls on a lean HTTP/2 connection (packages/runtime/src/transport/grpc-unary.ts). */
  unary: UnaryChannel | null;
  ready: Promise<true>;
  /** Request buffers reused across this connection's calls. */
  buffers: EncodeBuffers;
  /** Closes what was opened. */
  close(): void;
}

/**
 * A Response whose `message` is decoded on first read: converting a large tensor reply to k6's JSON
 * (base64 strings) costs as much as the call itself, and many scripts only check the status.
 */
function responseObject(base: Omit<GrpcResponse, 'message'>, decode: () => unknown): GrpcResponse {
  let message: unknown;
  let decoded = false;
  const res = base as GrpcResponse;
  Object.defineProperty(res, 'message', {
    enumerable: true,
    configurable: true,
    get: () => {
      if (!decoded) {
        message = decode();
        decoded = true;
      }
      return message;
    },
    set: (v: unknown) => {
      message = v;
      decoded = true;
    },
  });
  return res;
}

/** HTTP/2 receive window per connection: the 64 KiB default stalls large responses on round trips. */
const FLOW_CONTROL_WINDOW_BYTES = 16 * 1024 * 1024;

const USER_AGENT = 'k6-triton-node-runtime';

/** Waits for a unary channel's connection; refused dials fail as grpc-go's do under k6. */
function waitUnary(unary: UnaryChannel, addr: string, timeout_ms: number): Promise<true> {
  return new Promise<true>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('context deadline exceeded')), timeout_ms);
    unary.ready().then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      () => {
        clearTimeout(timer);
        reject(
          new Error(
            `connection error: desc = "transport: error while dialing: dial tcp ${addr}: connect failed"`,
          ),
        );
      },
    );
  });
}

/** k6's connect() defaults: 60 s to connect, TLS unless plaintext. */
const CONNECT_TIMEOUT_MS = 60_000;

function waitReady(client: grpcjs.Client, addr: string, timeout_ms: number): Promise<true> {
  const channel = client.getChannel();
  const deadline = Date.now() + timeout_ms;
  return new Promise<true>((resolve, reject) => {
    const check = (): void => {
      const state = channel.getConnectivityState(true);
      if (state === grpcjs.connectivityState.READY) {
        resolve(true);
        return;
      }
      // grpc-go with FailOnNonTempDialError (as k6 dials) fails at once when the dial is refused.
      if (
        state === grpcjs.connectivityState.TRANSIENT_FAILURE ||
        state === grpcjs.connectivityState.SHUTDOWN
      ) {
        reject(
          new Error(
            `connection error: desc = "transport: error while dialing: dial tcp ${addr}: connect failed"`,
          ),
        );
        return;
      }
      channel.watchConnectivityState(state, deadline, (err) => {
        if (err) reject(new Error('context deadline exceeded'));
        else check();
      });
    };
    check();
  });
}

/** connect()'s `tls`: PEM strings, as k6 takes them. */
interface ConnectTls {
  cert?: string;
  key?: string;
  password?: string;
  cacerts: string[];
}

interface ConnectParams {
  plaintext: boolean;
  tls?: ConnectTls;
  timeout_ms: number;
  reflect: boolean;
  reflectMetadata: grpcjs.Metadata;
  options: grpcjs.ChannelOptions;
}

function connectParams(input: unknown): ConnectParams {
  const out: ConnectParams = {
    plaintext: false,
    timeout_ms: CONNECT_TIMEOUT_MS,
    reflect: false,
    reflectMetadata: new grpcjs.Metadata(),
    options: {},
  };
  const bad = (msg: string): Error => new Error(`invalid grpc.connect() parameters: ${msg}`);
  for (const [k, v] of Object.entries((input ?? {}) as Record<string, unknown>)) {
    switch (k) {
      case 'plaintext':
        if (typeof v !== 'boolean')
          throw bad(`invalid plaintext value: '${String(v)}', it needs to be boolean`);
        out.plaintext = v;
        break;
      case 'timeout':
        out.timeout_ms = parseDuration_ms(v, 'timeout value');
        break;
      case 'reflect':
        if (typeof v !== 'boolean')
          throw bad(`invalid reflect value: '${String(v)}', it needs to be boolean`);
        out.reflect = v;
        break;
      case 'reflectMetadata':
        try {
          out.reflectMetadata = toMetadata(v, 'reflectMetadata');
        } catch (e) {
          throw bad((e as Error).message);
        }
        break;
      case 'maxReceiveSize':
      case 'maxSendSize': {
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
          throw bad(`invalid ${k} value: '${String(v)}', it needs to be a positive integer`);
        }
        const key =
          k === 'maxReceiveSize' ? 'grpc.max_receive_message_length' : 'grpc.max_send_message_length';
        if (v > 0) out.options[key] = v;
        break;
      }
      case 'tls':
        out.tls = connectTls(v, bad);
        break;
      default:
        throw bad(`unknown connect param: "${k}"`);
    }
  }
  return out;
}

/** Reads connect()'s `tls` object: cert and key together, cacerts one PEM string or several. */
function connectTls(v: unknown, bad: (msg: string) => Error): ConnectTls {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw bad('invalid tls value: expected an object');
  const out: ConnectTls = { cacerts: [] };
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (k === 'cacerts') {
      const list = Array.isArray(x) ? x : [x];
      if (list.some((c) => typeof c !== 'string')) throw bad('invalid tls.cacerts: expected PEM strings');
      out.cacerts = list as string[];
    } else if (k === 'cert' || k === 'key' || k === 'password') {
      if (typeof x !== 'string') throw bad(`invalid tls.${k}: expected a string`);
      out[k] = x;
    } else {
      throw bad(`unknown tls param: "${k}"`);
    }
  }
  if (Boolean(out.cert) !== Boolean(out.key)) throw bad('tls.cert and tls.key must be given together');
  return out;
}

/** The host part of host:port ([v6]:port too). */
function hostOf(address: string): string {
  const colon = address.lastIndexOf(':');
  return (colon > 0 ? address.slice(0, colon) : address).replace(/^\[|\]$/g, '');
}

/**
 * TLS credentials as k6 builds them: the test's insecureSkipTLSVerify, tlsAuth, tlsVersion and tlsCipherSuites, then connect()'s own
 * `tls` (its cacerts join the roots, its cert replaces tlsAuth's).
 */
function tlsCredentials(
  own: ConnectTls | undefined,
  test: ClientTls,
  host: string,
): grpcjs.ChannelCredentials {
  const base = tlsConnectOptions(test, host);
  const roots = [
    ...(base.ca ? [base.ca] : own?.cacerts.length ? [...tls.rootCertificates] : []),
    ...(own?.cacerts ?? []),
  ];
  const cert = own?.cert ?? base.cert;
  const key = own?.cert ? own.key : base.key;
  const passphrase = own?.cert ? own.password : base.passphrase;
  const privateKey = key
    ? passphrase
      ? createPrivateKey({ key, passphrase }).export({ type: 'pkcs8', format: 'pem' })
      : key
    : undefined;
  // A secure context rather than createSsl: it also carries tlsVersion and tlsCipherSuites, as k6's does.
  const context = tls.createSecureContext({
    ...(roots.length ? { ca: roots.join('\n') } : {}),
    ...(privateKey ? { key: privateKey } : {}),
    ...(cert ? { cert } : {}),
    ...test.protocol,
  });
  return grpcjs.credentials.createFromSecureContext(
    context,
    base.rejectUnauthorized ? {} : { rejectUnauthorized: false, checkServerIdentity: () => undefined },
  );
}

/** k6's grpc.Client. */
export class Client {
  readonly #methods = new Map<string, MethodDef>();
  readonly #connections = new WeakMap<VuState, Connection>();

  /** Parses proto files; only in the init context, as in k6. Returns k6's method infos. */
  load(importPaths: string[] | string | null, ...protoFiles: string[]): MethodInfo[] {
    if (!ownerVu(this).inInit) throw new Error('load must be called in the init context');
    const paths = importPaths === null || importPaths === undefined ? [] : [importPaths].flat();
    const defs = loadProtos(paths, protoFiles);
    for (const d of defs) this.#methods.set(d.path, d);
    return defs.map(methodInfo);
  }

  /** Loading a protoset (binary FileDescriptorSet) is not supported by this runtime. */
  loadProtoset(_path: string): never {
    throw new Error('k6 API grpc Client.loadProtoset is not supported by the Node runtime; run with k6');
  }

  /** Connects this VU to `address`; resolves with true when the connection is ready. */
  connect(address: string, params?: Record<string, unknown>): Promise<true> {
    const vu = ownerVu(this);
    if (vu.inInit) throw new Error('connecting to a gRPC server in the init context is not supported');
    const p = connectParams(params);
    const port = Number(address.slice(address.lastIndexOf(':') + 1)) || 443;
    refuseOtherDial(vu.options.http?.dial, 'gRPC', hostOf(address), port);
    this.#closeFor(vu);
    const credentials = p.plaintext
      ? grpcjs.credentials.createInsecure()
      : tlsCredentials(p.tls, vu.options.tls, hostOf(address));
    let client: grpcjs.Client | null = null;
    // A local subchannel pool gives every VU its own HTTP/2 connection, as k6 does.
    const grpcClient = (): grpcjs.Client =>
      (client ??= new grpcjs.Client(address, credentials, {
        'grpc.use_local_subchannel_pool': 1,
        'grpc.primary_user_agent': USER_AGENT,
        // grpc-go (k6) grows its HTTP/2 receive window by BDP estimation; a fixed large window gets close.
        'grpc-node.flow_control_window': FLOW_CONTROL_WINDOW_BYTES,
        ...p.options,
      }));
    const maxReceive = p.options['grpc.max_receive_message_length'];
    const unary =
      p.plaintext && !p.reflect && wirePath() === 'own'
        ? new UnaryChannel(address, {
            window_bytes: FLOW_CONTROL_WINDOW_BYTES,
            userAgent: USER_AGENT,
            ...(typeof maxReceive === 'number' ? { maxReceive_bytes: maxReceive } : {}),
          })
        : null;
    const connected = unary
      ? waitUnary(unary, address, p.timeout_ms)
      : waitReady(grpcClient(), address, p.timeout_ms);
    const ready = p.reflect
      ? connected.then(async () => {
          const defs = await reflectMethods(grpcClient(), p.reflectMetadata, p.timeout_ms);
          for (const d of defs) this.#methods.set(d.path, d);
          return true as const;
        })
      : connected;
    ready.catch(() => undefined);
    const conn: Connection = {
      addr: address,
      get client() {
        return grpcClient();
      },
      unary,
      ready,
      buffers: new EncodeBuffers(),
      close: () => {
        unary?.close();
        client?.close();
      },
    };
    if (!this.#connections.has(vu)) vu.onRetire(() => this.#closeFor(vu));
    this.#connections.set(vu, conn);
    return ready;
  }

  /** k6's synchronous invoke: not supported here, throws an error naming asyncInvoke. */
  invoke(..._args: unknown[]): Promise<GrpcResponse> {
    throw new Error(
      'k6/net/grpc Client.invoke() is synchronous, which the Node runtime does not support (all VUs share one event loop); use "await client.asyncInvoke(method, request, params)" instead, or run the script with k6',
    );
  }

  /** k6's asyncInvoke(method, request, params): resolves with a Response whatever the gRPC status. */
  async asyncInvoke(method: string, request: unknown, params?: unknown): Promise<GrpcResponse> {
    const vu = ownerVu(this);
    if (vu.inInit) throw new Error('invoking RPC methods in the init context is not supported');
    const conn = this.#connections.get(vu);
    if (!conn) throw new Error('no gRPC connection, you must call connect first');
    const def = this.method(method);
    const p = cachedCallParams(params, 'client.invoke()', DEFAULT_INVOKE_TIMEOUT_MS);
    if (request === null || request === undefined) throw new Error('request cannot be nil');
    const shared = encodedFrozen(def.requestType, request);
    const payload = shared ?? conn.buffers.encode(def.requestType, request);
    const release = () => {
      if (!shared) conn.buffers.release(payload);
    };
    try {
      await conn.ready;
    } catch (err) {
      release();
      throw err;
    }
    const vuTags = vu.tags();
    const t0 = performance.now();
    const respond = (
      code: number,
      details: string,
      headers: Record<string, string[]>,
      trailers: Record<string, string[]>,
      reply: Buffer | null,
    ): GrpcResponse => {
      const duration_ms = performance.now() - t0;
      // The call has ended: nothing holds the request bytes any more.
      release();
      const tags = callTags(vu, p.tags, conn.addr, def, code);
      // The lean connection counts its wire bytes; grpc-js's calls count their messages only.
      const wire = conn.unary?.takeWireBytes() ?? {
        sent: payload.length + 5,
        received: reply ? reply.length + 5 : 0,
      };
      vu.emit(callSamples(vuTags, tags, duration_ms, wire.sent, wire.received));
      const ok = code === StatusOK;
      const bytes = ok && !p.discardResponseMessage ? reply : null;
      return responseObject(
        {
          status: code,
          headers,
          trailers,
          error: ok ? null : { code, message: statusMessage(code, details), details: [] },
        },
        bytes ? () => messageOut(def.responseType, def.responseType.decode(bytes)) : () => null,
      );
    };
    if (conn.unary) {
      const out = await conn.unary.call(def.path, payload, p.metadata, p.timeout_ms);
      const { code, details, headers, trailers, reply } = out;
      return respond(code, details, metadataRecord(headers), metadataRecord(trailers), reply);
    }
    return new Promise<GrpcResponse>((resolve) => {
      let headers: grpcjs.Metadata | null = null;
      let reply: Buffer | null = null;
      const options: grpcjs.CallOptions = p.timeout_ms > 0 ? { deadline: Date.now() + p.timeout_ms } : {};
      const call = conn.client.makeUnaryRequest(
        def.path,
        passBuffer,
        passBuffer,
        payload,
        // grpc-js owns the metadata it sends; a frozen params object's is shared by every call.
        p.metadata.clone(),
        options,
        (_err, value) => {
          reply = value ?? null;
        },
      );
      call.on('metadata', (md: grpcjs.Metadata) => (headers = md));
      call.on('status', (st: grpcjs.StatusObject) =>
        resolve(respond(st.code, st.details, fromMetadata(headers), fromMetadata(st.metadata), reply)),
      );
    });
  }

  /** Closes this VU's connection. */
  close(): void {
    this.#closeFor(ownerVu(this));
  }

  /**
   * k6's healthCheck([service]): the server's grpc.health.v1 answer, `{ status: HealthCheckServing }`;
   * a failed call throws grpc-go's error. k6's is synchronous; here it is a promise to await, whose
   * `status` read without await throws, saying so.
   */
  healthCheck(service?: string): Promise<{ status: HealthCheckStatus }> {
    const p = this.#healthCheck(service ?? '');
    Object.defineProperty(p, 'status', {
      get() {
        throw new Error(HEALTH_CHECK_IS_ASYNC);
      },
    });
    return p;
  }

  async #healthCheck(service: string): Promise<{ status: HealthCheckStatus }> {
    if (!this.#methods.has(HEALTH_CHECK.path)) this.#methods.set(HEALTH_CHECK.path, HEALTH_CHECK);
    const r = await this.asyncInvoke(HEALTH_CHECK.path, { service });
    if (r.status !== StatusOK) throw healthCheckError(r.status, r.error?.message ?? '');
    return { status: healthStatus((r.message as { status?: number } | null)?.status ?? 0) };
  }

  /** The method definition for k6's method argument ("pkg.Service/Method", leading slash optional). */
  method(name: string): MethodDef {
    if (!name) throw new Error('method to invoke cannot be empty');
    const path = name.startsWith('/') ? name : `/${name}`;
    const def = this.#methods.get(path);
    if (!def) throw new Error(`method "${path}" not found in file descriptors`);
    return def;
  }

  /** This VU's connection (for Stream); throws k6's error when connect was not called. */
  connectionFor(vu: VuState): Connection {
    const conn = this.#connections.get(vu);
    if (!conn) throw new Error('no gRPC connection, you must call connect first');
    return conn;
  }

  #closeFor(vu: VuState): void {
    const conn = this.#connections.get(vu);
    if (!conn) return;
    this.#connections.delete(vu);
    conn.close();
  }
}

// Stream needs Client's connection and method lookup; the link is set here to avoid an import cycle.
openStream.resolve = (client, vu, method) => {
  const c = client as Client;
  return { conn: c.connectionFor(vu), def: c.method(method) };
};

/**
 * k6's Client with invoke() as a promise, for scripts whose bundle awaits it (loader/await-sync.ts
 * awaits invoke(), connect() and healthCheck() calls there); the loader gives it in place of Client.
 */
class AwaitedClient extends Client {
  /** k6's synchronous invoke, awaited by the transformed script. */
  override invoke(method: string, request: unknown, params?: unknown): Promise<GrpcResponse> {
    if (ownerVu(this).inInit) throw new Error('invoking RPC methods in the init context is not supported');
    return this.asyncInvoke(method, request, params);
  }
}

/** Promise forms of k6's synchronous calls, for scripts whose bundle awaits them. */
export const PROMISE_FORMS = { Client: AwaitedClient };

const grpc = {
  Client,
  Stream,
  StatusOK,
  StatusCanceled,
  StatusUnknown,
  StatusInvalidArgument,
  StatusDeadlineExceeded,
  StatusNotFound,
  StatusAlreadyExists,
  StatusPermissionDenied,
  StatusResourceExhausted,
  StatusFailedPrecondition,
  StatusAborted,
  StatusOutOfRange,
  StatusUnimplemented,
  StatusInternal,
  StatusUnavailable,
  StatusDataLoss,
  StatusUnauthenticated,
  HealthCheckUnknown,
  HealthCheckServing,
  HealthCheckNotServing,
  HealthCheckServiceUnkown,
};

export default grpc;
