/**
 * Node's own floor, without any k6 runtime: N loops of one request after another through a Node
 * client library, for the fidelity table. What these reach is the most a generator on Node can
 * reach on this machine; the gap between them and perf_analyzer is the platform's, not the suite's.
 * Each runs in its own process (`node --import tsx bench/fidelity/raw-clients.ts <kind> ...`) and
 * prints one JSON line: { requests, seconds, cpu_s }.
 */
import { connect, constants } from 'node:http2';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { Client } from 'undici';

/** What one raw run measured. */
export interface RawResult {
  requests: number;
  seconds: number;
  cpu_s: number;
}

/** The binary-extension infer body and headers for one FP32 input of `bytes` zero bytes. */
function httpRequest(input: string, output: string, shape: number[], bytes: number) {
  const header = JSON.stringify({
    inputs: [{ name: input, shape, datatype: 'FP32', parameters: { binary_data_size: bytes } }],
    outputs: [{ name: output, parameters: { binary_data: true } }],
  });
  const body = Buffer.alloc(Buffer.byteLength(header) + bytes);
  body.write(header);
  const headers = {
    'content-type': 'application/octet-stream',
    'inference-header-content-length': String(Buffer.byteLength(header)),
  };
  return { body, headers };
}

/** A ModelInferRequest encoded once, framed as a gRPC message (flag byte, length, bytes). */
async function grpcFrame(model: string, input: string, output: string, shape: number[], bytes: number) {
  const proto = fileURLToPath(new URL('../../proto/grpc_service.proto', import.meta.url));
  const root = await protobuf.load(proto);
  const type = root.lookupType('inference.ModelInferRequest');
  const message = type
    .encode(
      type.fromObject({
        modelName: model,
        inputs: [{ name: input, datatype: 'FP32', shape }],
        outputs: [{ name: output }],
        rawInputContents: [Buffer.alloc(bytes)],
      }),
    )
    .finish();
  const framed = Buffer.alloc(5 + message.length);
  framed.writeUInt32BE(message.length, 1);
  framed.set(message, 5);
  return { message: Buffer.from(message), framed };
}

async function loops(vus: number, seconds: number, once: () => Promise<void>): Promise<RawResult> {
  const end = Date.now() + seconds * 1000;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let requests = 0;
  await Promise.all(
    Array.from({ length: vus }, async () => {
      while (Date.now() < end) {
        await once();
        requests++;
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  return { requests, seconds: (performance.now() - t0) / 1000, cpu_s: (cpu.user + cpu.system) / 1e6 };
}

const METHOD = '/inference.GRPCInferenceService/ModelInfer';

/** undici, one Client (one socket) per loop, as the Node runtime uses it. */
async function rawUndici(
  url: string,
  path: string,
  req: ReturnType<typeof httpRequest>,
  vus: number,
  s: number,
) {
  const clients = Array.from({ length: vus }, () => new Client(url));
  let next = 0;
  const result = await loops(vus, s, async () => {
    const client = clients[next++ % vus]!;
    const res = await client.request({ path, method: 'POST', headers: req.headers, body: req.body });
    await res.body.arrayBuffer();
  });
  await Promise.all(clients.map((c) => c.close()));
  return result;
}

/** grpc-js unary calls with the message encoded once (identity serializers). */
async function rawGrpcJs(address: string, message: Buffer, vus: number, s: number) {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const pass = (b: Buffer) => b;
  const result = await loops(
    vus,
    s,
    () =>
      new Promise<void>((resolve, reject) => {
        client.makeUnaryRequest(METHOD, pass, pass, message, (err) => (err ? reject(err) : resolve()));
      }),
  );
  client.close();
  return result;
}

/** node:http2 streams carrying the framed message: gRPC with nothing but the wire format. */
async function rawHttp2(address: string, framed: Buffer, vus: number, s: number) {
  const session = connect(`http://${address}`);
  const headers = {
    [constants.HTTP2_HEADER_METHOD]: 'POST',
    [constants.HTTP2_HEADER_PATH]: METHOD,
    'content-type': 'application/grpc',
    te: 'trailers',
  };
  const result = await loops(
    vus,
    s,
    () =>
      new Promise<void>((resolve, reject) => {
        const stream = session.request(headers);
        let status: string | undefined;
        stream.on('trailers', (t) => (status = String(t['grpc-status'])));
        stream.on('response', (h) => (status ??= h['grpc-status'] as string | undefined));
        stream.on('data', () => {});
        stream.on('end', () => (status === '0' ? resolve() : reject(new Error(`grpc-status ${status}`))));
        stream.on('error', reject);
        stream.end(framed);
      }),
  );
  session.close();
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [kind, target, model, input, output, shapeJson, vusText, secondsText] = process.argv.slice(2);
  const shape = JSON.parse(shapeJson!) as number[];
  const bytes = shape.reduce((a, b) => a * b, 1) * 4;
  const vus = Number(vusText);
  const seconds = Number(secondsText);
  let result: RawResult;
  if (kind === 'undici') {
    const req = httpRequest(input!, output!, shape, bytes);
    result = await rawUndici(target!, `/v2/models/${model}/infer`, req, vus, seconds);
  } else {
    const { message, framed } = await grpcFrame(model!, input!, output!, shape, bytes);
    result =
      kind === 'grpc-js'
        ? await rawGrpcJs(target!, message, vus, seconds)
        : await rawHttp2(target!, framed, vus, seconds);
  }
  console.log(JSON.stringify(result));
}
