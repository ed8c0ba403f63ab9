/**
 * k6's grpc.Stream: a bidirectional stream with on('data'|'error'|'end'), write() and end(), and k6's
 * metrics (grpc_streams, grpc_streams_msgs_sent, grpc_streams_msgs_received, grpc_req_duration at close).
 * k6 keeps an iteration alive while its streams are open; here the engine awaits waitForStreams(vu).
 */
import { performance } from 'node:perf_hooks';
import type * as grpcjs from '@grpc/grpc-js';
import { logLine } from '../log.ts';
import { currentVu, type Tags, type VuState } from '../vu-context.ts';
import { type CallParams, callTags, parseCallParams, passBuffer, statusMessage } from './grpc-call.ts';
import type { UnaryChannel } from '../transport/grpc-unary.ts';
import type { StreamCall } from '../transport/http2-connection.ts';
import { messageIn, messageOut } from './grpc-json.ts';
import type { MethodDef } from './grpc-protos.ts';
import { OpenStreams } from './open-streams.ts';

type Listener = (value: unknown) => void;

/** How a Stream finds its VU's connection and the method (set by grpc.ts to avoid an import cycle). */
export const openStream: {
  resolve: (
    client: unknown,
    vu: VuState,
    method: string,
  ) => { conn: { addr: string; client: grpcjs.Client; unary: UnaryChannel | null }; def: MethodDef };
} = {
  resolve: () => {
    throw new Error('k6/net/grpc is not initialised');
  },
};

const open = new OpenStreams();

/** Resolves when every stream the VU opened so far has ended (the engine awaits it after an iteration). */
export function waitForStreams(vu: VuState): Promise<void> {
  return open.wait(vu);
}

const EVENTS = new Set(['data', 'error', 'end']);

/** A stream on grpc-js (TLS, reflection, or the grpc-js wire), behind the lean connection's StreamCall. */
function grpcjsStream(
  client: grpcjs.Client,
  def: MethodDef,
  p: CallParams,
  onMessage: (buf: Buffer) => void,
  onStatus: (code: number, details: string) => void,
): StreamCall {
  const options: grpcjs.CallOptions = p.timeout_ms > 0 ? { deadline: Date.now() + p.timeout_ms } : {};
  // grpc-js owns the metadata it sends; params without metadata share one object (grpc-call.ts).
  const call = client.makeBidiStreamRequest(def.path, passBuffer, passBuffer, p.metadata.clone(), options);
  call.on('data', onMessage);
  // 'error' carries the same status as 'status'; handling 'status' alone avoids double events.
  call.on('error', () => undefined);
  call.on('status', (st: grpcjs.StatusObject) => onStatus(st.code, st.details));
  return {
    write: (message) => call.write(message),
    end: () => call.end(),
    cancel: () => call.cancel(),
  };
}

/** k6's grpc.Stream(client, method, params). */
export class Stream {
  readonly #vu: VuState;
  readonly #def: MethodDef;
  readonly #call: StreamCall;
  readonly #tags: Tags;
  readonly #listeners = new Map<string, Listener[]>();
  #writing = true;
  #closed = false;

  constructor(client: unknown, method: string, params?: unknown) {
    const vu = currentVu();
    if (vu.inInit) throw new Error('creating a gRPC stream in the init context is not supported');
    const { conn, def } = openStream.resolve(client, vu, method);
    const p = parseCallParams(params, 'stream', 0);
    this.#vu = vu;
    this.#def = def;
    // A copy without status: callTags' objects are shared and never mutated.
    const { status: _status, ...base } = callTags(vu, p.tags, conn.addr, def, 0);
    this.#tags = base;
    const t0 = performance.now();
    vu.emit([{ metric: 'grpc_streams', value: 1, tags: base }]);

    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    open.track(vu, finished);
    // An interrupted iteration's stream is cancelled and heard no more, as k6's ends with the VU's context:
    // its late answers must not reach the next iteration (or the next scenario) of this VU.
    let interrupted = false;
    const unhook = vu.onInterrupt(() => {
      interrupted = true;
      this.#closed = true;
      this.#writing = false;
      this.#call.cancel();
      done();
    });
    const onMessage = (buf: Buffer): void => {
      if (interrupted) return;
      vu.emit([{ metric: 'grpc_streams_msgs_received', value: 1, tags: base }]);
      const msg = messageOut(def.responseType, def.responseType.decode(buf));
      for (const fn of this.#listeners.get('data') ?? []) fn(msg);
    };
    const onStatus = (code: number, details: string): void => {
      if (interrupted) return;
      unhook();
      this.#closed = true;
      this.#writing = false;
      vu.emit([
        {
          metric: 'grpc_req_duration',
          value: performance.now() - t0,
          tags: { ...base, status: String(code) },
        },
      ]);
      try {
        // k6 calls the error listeners first, then the end listeners.
        if (code !== 0) {
          const err = { code, details: [], message: statusMessage(code, details) };
          for (const fn of this.#listeners.get('error') ?? []) fn(err);
        }
        for (const fn of this.#listeners.get('end') ?? []) fn(undefined);
      } finally {
        done();
      }
    };
    // Plaintext connections stream on the runtime's own HTTP/2 connection (transport/grpc-unary.ts), the rest on grpc-js.
    this.#call = conn.unary
      ? conn.unary.stream(def.path, p.metadata, p.timeout_ms, {
          message: onMessage,
          end: (o) => onStatus(o.code, o.details),
        })
      : grpcjsStream(conn.client, def, p, onMessage, onStatus);
  }

  /** Registers a listener for 'data', 'error' or 'end'. */
  on(event: string, handler: Listener): void {
    if (typeof handler !== 'function')
      throw new Error(`handler for "${event}" event isn't a callable function`);
    if (!EVENTS.has(event)) {
      logLine('WARN', `can't register ${event} event handler: unknown event`);
      return;
    }
    const list = this.#listeners.get(event) ?? [];
    list.push(handler);
    this.#listeners.set(event, list);
  }

  /** Sends one message (k6's JSON mapping); ignored after end(), as in k6; the only one of a server-streaming call. */
  write(message: unknown): void {
    if (!this.#writing || this.#closed) return;
    if (message === null || message === undefined) return;
    const bytes = this.#def.requestType.encode(messageIn(this.#def.requestType, message)).finish();
    this.#call.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    this.#vu.emit([{ metric: 'grpc_streams_msgs_sent', value: 1, tags: this.#tags }]);
    // A server-streaming method takes one request: k6 half-closes after it, so the server answers.
    if (!this.#def.clientStream) this.end();
  }

  /** Half-closes the stream: no more writes; 'end' fires when the server finishes. */
  end(): void {
    if (!this.#writing) return;
    this.#writing = false;
    this.#call.end();
  }
}
