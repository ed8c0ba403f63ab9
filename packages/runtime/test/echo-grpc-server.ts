/**
 * The gRPC server of the k6/net/grpc tests: k6t.echo.Echo from fixtures/echo.proto (Echo returns the
 * request, Chat echoes a stream, Repeat streams the request back) plus server reflection and the gRPC health
 * service (the whole server and k6t.echo.Echo are SERVING, k6t.echo.Down NOT_SERVING), on 127.0.0.1 with an ephemeral port. It decodes
 * with @grpc/proto-loader, independently of the module under test.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpcjs from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';

/** Directory of the test protos. */
export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

interface EchoMsg {
  fail_with_code?: number;
  delay_ms?: number;
  inner?: { count?: number };
  [k: string]: unknown;
}

/** A running echo server: its address, how many connections it accepted, and stop(). */
export interface EchoServer {
  addr: string;
  connections(): number;
  stop(): void;
}

/** Starts the echo server (with reflection) on 127.0.0.1, port 0. */
export async function startEchoServer(): Promise<EchoServer> {
  const def = protoLoader.loadSync('echo.proto', {
    includeDirs: [FIXTURES],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: false,
    oneofs: true,
  });
  const pkg = grpcjs.loadPackageDefinition(def) as unknown as {
    k6t: { echo: { Echo: { service: grpcjs.ServiceDefinition } } };
  };
  const server = new grpcjs.Server();
  server.addService(pkg.k6t.echo.Echo.service, {
    Echo: (call: grpcjs.ServerUnaryCall<EchoMsg, EchoMsg>, cb: grpcjs.sendUnaryData<EchoMsg>) => {
      const req = call.request;
      const md = new grpcjs.Metadata();
      md.set('x-echo', String(call.metadata.get('x-test')[0] ?? 'none'));
      call.sendMetadata(md);
      const trailers = new grpcjs.Metadata();
      trailers.set('x-trailer', 'yes');
      // Binary metadata arrives base64-encoded; two values of one key, joined on the wire.
      trailers.add('x-raw-bin', Buffer.from([0x00, 0xff, 0x41]));
      trailers.add('x-raw-bin', Buffer.from('hi'));
      setTimeout(() => {
        if (req.fail_with_code)
          cb({ code: req.fail_with_code, details: 'failed on purpose', metadata: trailers });
        else cb(null, req, trailers);
      }, req.delay_ms ?? 0);
    },
    Chat: (call: grpcjs.ServerDuplexStream<EchoMsg, EchoMsg>) => {
      // Each message is echoed after its delay_ms, in order; the stream ends after the last echo.
      let echoed: Promise<void> = Promise.resolve();
      call.on('data', (m: EchoMsg) => {
        echoed = echoed.then(async () => {
          if (m.delay_ms) await new Promise((r) => setTimeout(r, m.delay_ms));
          if (m.fail_with_code)
            call.emit('error', { code: m.fail_with_code, details: 'stream failed on purpose' });
          else if (!call.cancelled) call.write(m);
        });
      });
      call.on('end', () => void echoed.then(() => call.end()));
    },
    Repeat: (call: grpcjs.ServerWritableStream<EchoMsg, EchoMsg>) => {
      for (let i = 0; i < (call.request.inner?.count ?? 0); i++) call.write(call.request);
      call.end();
    },
  });
  addReflection(server);
  addHealth(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpcjs.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  const addr = `127.0.0.1:${port}`;
  let connections = 0;
  // grpc-js has no public connection event; count HTTP/2 sessions through the channelz-free http2 hook.
  const http2Servers = (
    server as unknown as { http2Servers: Map<{ on: (e: string, f: () => void) => void }, unknown> }
  ).http2Servers;
  for (const s of http2Servers.keys()) s.on('connection', () => connections++);
  return { addr, connections: () => connections, stop: () => server.forceShutdown() };
}

/** A minimal grpc.reflection.v1alpha service: lists Echo and serves every file descriptor of echo.proto. */
function addReflection(srv: grpcjs.Server): void {
  const root = new protobuf.Root();
  root.resolvePath = (_o, t) => (t.startsWith('google/') ? t : path.join(FIXTURES, t));
  root.loadSync('echo.proto', { keepCase: true });
  const set = (root as unknown as { toDescriptor(e: string): { file: unknown[] } }).toDescriptor('proto3');
  const files = set.file.map((f) => Buffer.from(descriptor.FileDescriptorProto.encode(f as never).finish()));
  const r = protobuf.Root.fromJSON({
    nested: {
      Req: {
        fields: {
          file_by_filename: { type: 'string', id: 3 },
          file_containing_symbol: { type: 'string', id: 4 },
          list_services: { type: 'string', id: 7 },
        },
      },
      Res: {
        fields: {
          file_descriptor_response: { type: 'Files', id: 4 },
          list_services_response: { type: 'Services', id: 6 },
        },
      },
      Files: { fields: { file_descriptor_proto: { rule: 'repeated', type: 'bytes', id: 1 } } },
      Services: { fields: { service: { rule: 'repeated', type: 'Svc', id: 1 } } },
      Svc: { fields: { name: { type: 'string', id: 1 } } },
    },
  });
  const Req = r.lookupType('Req');
  const Res = r.lookupType('Res');
  const id = (b: Buffer): Buffer => b;
  srv.addService(
    {
      Info: {
        path: '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo',
        requestStream: true,
        responseStream: true,
        requestSerialize: id,
        requestDeserialize: id,
        responseSerialize: id,
        responseDeserialize: id,
      },
    },
    {
      Info: (call: grpcjs.ServerDuplexStream<Buffer, Buffer>) => {
        call.on('data', (buf: Buffer) => {
          const req = Req.toObject(Req.decode(buf)) as Record<string, string>;
          const res =
            req['list_services'] !== undefined
              ? { list_services_response: { service: [{ name: 'k6t.echo.Echo' }] } }
              : { file_descriptor_response: { file_descriptor_proto: files } };
          call.write(Buffer.from(Res.encode(Res.fromObject(res)).finish()));
        });
        call.on('end', () => call.end());
      },
    },
  );
}

/** grpc.health.v1.Health/Check, its two one-field messages coded by hand (field 1: service, status). */
function addHealth(server: grpcjs.Server): void {
  const SERVING: Record<string, number> = { '': 1, 'k6t.echo.Echo': 1, 'k6t.echo.Down': 2 };
  const raw = (b: Buffer) => b;
  const check: grpcjs.MethodDefinition<Buffer, Buffer> = {
    path: '/grpc.health.v1.Health/Check',
    requestStream: false,
    responseStream: false,
    requestSerialize: raw,
    requestDeserialize: raw,
    responseSerialize: raw,
    responseDeserialize: raw,
  };
  server.addService({ Check: check } as grpcjs.ServiceDefinition, {
    Check: (call: grpcjs.ServerUnaryCall<Buffer, Buffer>, cb: grpcjs.sendUnaryData<Buffer>) => {
      const req = call.request;
      const service = req.length >= 2 && req[0] === 0x0a ? req.subarray(2, 2 + req[1]!).toString() : '';
      const status = SERVING[service];
      if (status === undefined) cb({ code: grpcjs.status.NOT_FOUND, details: 'unknown service' });
      else cb(null, Buffer.from([0x08, status]));
    },
  });
}
