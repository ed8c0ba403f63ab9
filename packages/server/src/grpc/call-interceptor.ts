/**
 * A grpc-js server interceptor that makes a call's framing and verbose log read as Triton's gRPC C++ frontend:
 * - a unary call whose body holds no whole message (empty or short) or bytes that are not its message answers
 *   INTERNAL "Unable to parse request", where grpc-js says UNIMPLEMENTED "...server streaming method..." or
 *   INTERNAL "Error deserializing request" (grpc-js sends the latter itself, so `tolerantDecoders` turns a
 *   failed decode into a marker this interceptor sees); on a stream such bytes end the reading, and the call ends
 *   OK once what came before has settled, as Triton's stream does;
 * - a unary call with a second message is served from the first, the rest ignored (grpc-js refuses it);
 * - with a log, each call writes Triton's --log-verbose 1 lines (grpc_server.cc, infer_handler.cc): "Process for
 *   <rpc>, rpc_ok=1, <n> step START", then COMPLETE, then "Done for <rpc>, <n>"; a failed inference adds
 *   "[request id: <id>] Infer failed: <message>".
 */
import * as grpc from '@grpc/grpc-js';
import { type ActiveCalls, connectionKey } from './active-calls.ts';

/** Triton's status and message for a request body it cannot parse. */
export const UNPARSABLE = { code: grpc.status.INTERNAL, details: 'Unable to parse request' } as const;

/** What a method's request decoder gives for bytes that are not its message (see tolerantDecoders). */
const UNDECODABLE: unique symbol = Symbol('undecodable gRPC request');

/**
 * The service with each method's request decoder made total: bytes it cannot decode become a marker the
 * interceptor answers as Triton does, where grpc-js would answer from below every interceptor.
 */
export function tolerantDecoders(service: grpc.ServiceDefinition): grpc.ServiceDefinition {
  const total = (decode: grpc.deserialize<unknown>) => (bytes: Buffer) => {
    try {
      return decode(bytes);
    } catch {
      return UNDECODABLE;
    }
  };
  return Object.fromEntries(
    Object.entries(service).map(([name, m]) => [
      name,
      { ...m, requestDeserialize: total(m.requestDeserialize) },
    ]),
  );
}

/** grpc-js's own answer to a unary body without a whole message (server.js, handleUnary). */
function isFramingStatus(status: Pick<grpc.StatusObject, 'code' | 'details'>): boolean {
  return (
    status.code === grpc.status.UNIMPLEMENTED &&
    (status.details ?? '').startsWith('Received no request message')
  );
}

/** The handler name Triton's log gives an RPC: the inference RPCs have handlers of their own. */
function handlerName(path: string): string {
  const rpc = path.slice(path.lastIndexOf('/') + 1);
  return rpc === 'ModelInfer' || rpc === 'ModelStreamInfer' ? `${rpc}Handler` : rpc;
}

type Listener = Parameters<grpc.ServerInterceptingCallInterface['start']>[0];

/** One call seen through the interceptor: forwards everything, except what the header says it changes. */
class TritonCall implements grpc.ServerInterceptingCallInterface {
  #messages = 0;
  #requestId = '';
  #statusSent = false;
  #readEnded = false;
  #connection: string | undefined;

  constructor(
    readonly next: grpc.ServerInterceptingCallInterface,
    readonly unary: boolean,
    readonly name: string,
    readonly n: number,
    readonly log: ((line: string) => void) | undefined,
    readonly calls: ActiveCalls | undefined,
  ) {}

  /** Counts the call against its connection until it ends (once). */
  #begin(): void {
    if (!this.calls) return;
    const info = this.next.getConnectionInfo();
    this.#connection = connectionKey(info.remoteAddress, info.remotePort);
    this.calls.begin(this.#connection);
  }

  #end(): void {
    if (this.#connection === undefined) return;
    this.calls?.end(this.#connection);
    this.#connection = undefined;
  }

  get #inference(): boolean {
    return this.name === 'ModelInferHandler';
  }

  start(listener: Listener): void {
    this.#begin();
    this.log?.(`Process for ${this.name}, rpc_ok=1, ${this.n} step START`);
    if (this.#inference) this.log?.(`New request handler for ${this.name}, ${this.n}`);
    this.next.start({
      onReceiveMetadata: (metadata) => listener.onReceiveMetadata(metadata),
      onReceiveMessage: (message: unknown) => {
        this.#messages += 1;
        if (this.unary && this.#messages > 1) {
          // Served from the first message, as gRPC C++ reads one; read on to the end of the stream.
          this.next.startRead();
          return;
        }
        if (this.#readEnded) return;
        if (message === UNDECODABLE) {
          if (this.unary) this.sendStatus({ ...UNPARSABLE, metadata: new grpc.Metadata() });
          else {
            // Triton's stream reader stops at bytes it cannot parse: what was sent before settles, then OK.
            this.#readEnded = true;
            listener.onReceiveHalfClose();
          }
          return;
        }
        if (this.#inference) this.#requestId = String((message as { id?: unknown } | null)?.id ?? '');
        listener.onReceiveMessage(message);
      },
      onReceiveHalfClose: () => {
        if (!this.#readEnded) listener.onReceiveHalfClose();
      },
      onCancel: () => {
        this.#end();
        listener.onCancel();
      },
    });
  }

  sendStatus(status: Parameters<grpc.ServerInterceptingCallInterface['sendStatus']>[0]): void {
    // After an undecodable message the handler still sees the half-close and answers "no message": one status only.
    if (this.#statusSent) return;
    this.#statusSent = true;
    this.#end();
    const sent = this.unary && isFramingStatus(status) ? { ...status, ...UNPARSABLE } : status;
    if (this.log) {
      if (this.#inference && sent.code !== grpc.status.OK) {
        this.log(`[request id: ${this.#requestId || '<id_unknown>'}] Infer failed: ${sent.details ?? ''}`);
      }
      this.log(`Process for ${this.name}, rpc_ok=1, ${this.n} step COMPLETE`);
      this.log(`Done for ${this.name}, ${this.n}`);
    }
    this.next.sendStatus(sent);
  }

  sendMetadata(metadata: grpc.Metadata): void {
    this.next.sendMetadata(metadata);
  }
  sendMessage(message: unknown, callback: () => void): void {
    this.next.sendMessage(message, callback);
  }
  startRead(): void {
    this.next.startRead();
  }
  getPeer(): string {
    return this.next.getPeer();
  }
  getDeadline(): grpc.Deadline {
    return this.next.getDeadline();
  }
  getHost(): string {
    return this.next.getHost();
  }
  getAuthContext(): ReturnType<grpc.ServerInterceptingCallInterface['getAuthContext']> {
    return this.next.getAuthContext();
  }
  getConnectionInfo(): ReturnType<grpc.ServerInterceptingCallInterface['getConnectionInfo']> {
    return this.next.getConnectionInfo();
  }
  getMetricsRecorder(): ReturnType<grpc.ServerInterceptingCallInterface['getMetricsRecorder']> {
    return this.next.getMetricsRecorder();
  }
}

/**
 * The interceptor; `log` receives the verbose lines (none without it), `calls` counts calls in progress per
 * connection (for the port's connection slots).
 */
export function tritonCallInterceptor(
  log?: (line: string) => void,
  calls?: ActiveCalls,
): grpc.ServerInterceptor {
  let next = 0;
  // grpc-js types an interceptor's result as its class but only calls the interface (getServerInterceptingCall).
  return (method, call) =>
    new TritonCall(
      call,
      !method.requestStream,
      handlerName(method.path),
      next++,
      log,
      calls,
    ) as unknown as grpc.ServerInterceptingCall;
}
