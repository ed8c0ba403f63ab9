/**
 * The fuzz corpus: seeded random mutations of valid requests. HTTP cases are raw request bytes (head, framing,
 * JSON, binary sizes, content encodings all mutated); gRPC cases are ModelInferRequest messages mutated as
 * objects before encoding, or as bytes after. Pure: the same seed gives the same corpus.
 */
import zlib from 'node:zlib';
import { createRandom } from '@k6-triton/lib/random/random.ts';
import { int32Bytes } from './helpers.ts';

/** One raw HTTP request: the bytes sent on a fresh connection, which is then half-closed. */
export interface HttpCase {
  what: string;
  bytes: Buffer;
}

/** One gRPC call: a method and its message bytes (a mutation may make them undecodable). */
export interface GrpcCase {
  what: string;
  method: string;
  bytes: Buffer;
}

type Rand = ReturnType<typeof makeRand>;

function makeRand(seed: number) {
  const rng = createRandom(seed);
  const random = () => rng.float();
  const int = (n: number) => Math.floor(random() * n);
  return {
    random,
    int,
    pick: <T>(items: readonly T[]): T => items[int(items.length)]!,
    chance: (p: number) => random() < p,
  };
}

const seq = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Marks a string serialise() replaces by an array nested that deep. */
const DEEP = '__deep__';

/** Values a mutated JSON field may take: each has broken something in some server. */
function junk(r: Rand): unknown {
  const depth = r.pick([2, 65, 1000, 100_000]);
  const values: (() => unknown)[] = [
    () => null,
    () => -1,
    () => 0,
    () => 1e308,
    () => -2147483649,
    () => 2 ** 53 + 1,
    () => 0.5,
    () => 'NaN',
    () => '',
    () => 'x'.repeat(r.int(5000)),
    () => true,
    () => ({}),
    () => ({ a: { b: [1, { c: null }] } }),
    () => [],
    () => [null],
    () => [{ a: 1 }, 'x'],
    () => [-1, -1],
    () => [1e9, 1e9, 1e9],
    () => seq(r.int(20_000)),
    // JSON.stringify recurses: deep nesting is spliced in as text by serialise().
    () => `${DEEP}${depth}`,
    () => '\u0000\ud800',
    () => r.pick(['FP32', 'INT32', 'BYTES', 'FP16', 'BOOL', 'INT64', 'UINT8', 'TYPE_FP32', 'fp32']),
  ];
  return r.pick(values)();
}

/** Sets a random path of a JSON value (object key or array index) to junk; returns the mutated copy. */
function mutateJson(value: unknown, r: Rand): unknown {
  if (value === null || typeof value !== 'object' || r.chance(0.25)) return junk(r);
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [...value] : { ...value };
  const keys = Object.keys(copy);
  if (keys.length === 0 || r.chance(0.1)) {
    (copy as Record<string, unknown>)[
      r.pick(['parameters', 'outputs', 'id', 'binary_data_size', 'classification', 'timeout', 'extra'])
    ] = junk(r);
    return copy;
  }
  const key = r.pick(keys);
  (copy as Record<string, unknown>)[key] = r.chance(0.15)
    ? undefined
    : mutateJson((copy as Record<string, unknown>)[key], r);
  return copy;
}

function simpleJson(r: Rand): Record<string, unknown> {
  const batch = r.pick([1, 2]);
  const req: Record<string, unknown> = {
    id: 'fuzz',
    inputs: ['INPUT0', 'INPUT1'].map((name) => ({
      name,
      shape: [batch, 16],
      datatype: 'INT32',
      data: seq(16 * batch),
    })),
  };
  if (r.chance(0.5))
    req.outputs = [
      { name: 'OUTPUT0', parameters: r.chance(0.5) ? { classification: 3 } : { binary_data: true } },
    ];
  return req;
}

interface Base {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** JSON part (mutable as an object), then binary part. */
  json?: unknown;
  binary?: Buffer;
  /** The JSON part's length goes in Inference-Header-Content-Length. */
  headerLength?: boolean;
}

function baseRequest(r: Rand): Base {
  switch (r.int(8)) {
    case 0:
      return {
        method: 'POST',
        path: '/v2/models/simple/infer',
        headers: { 'Content-Type': 'application/json' },
        json: simpleJson(r),
      };
    case 1: {
      const json = {
        inputs: ['INPUT0', 'INPUT1'].map((name) => ({
          name,
          shape: [1, 16],
          datatype: 'INT32',
          parameters: { binary_data_size: 64 },
        })),
        parameters: { binary_data_output: true },
      };
      return {
        method: 'POST',
        path: '/v2/models/simple/infer',
        headers: {},
        json,
        binary: Buffer.concat([int32Bytes(seq(16)), int32Bytes(seq(16))]),
        headerLength: true,
      };
    }
    case 2:
      return {
        method: 'POST',
        path: '/v2/models/nobatch/infer',
        headers: { 'Inference-Header-Content-Length': '0' },
        binary: Buffer.alloc(3136),
      };
    case 3:
      return {
        method: 'POST',
        path: '/v2/models/strings/infer',
        headers: {},
        json: { inputs: [{ name: 'TEXT', shape: [1, 2], datatype: 'BYTES', data: ['a', 'b'] }] },
      };
    case 4:
      return { method: 'POST', path: '/v2/repository/index', headers: {}, json: { ready: true } };
    case 5:
      return {
        method: 'POST',
        path: '/v2/repository/models/loadme/load',
        headers: {},
        json: { parameters: { config: '{"max_batch_size": 4}' } },
      };
    default:
      return {
        method: 'GET',
        path: r.pick([
          '/v2',
          '/v2/health/ready',
          '/v2/models/simple',
          '/v2/models/simple/config',
          '/v2/models/stats',
          '/v2/models/strings/versions/1/stats',
        ]),
        headers: {},
      };
  }
}

/** Serialises a request, applying framing-level mutations. */
function serialise(base: Base, r: Rand): { head: string; body: Buffer } {
  const text = base.json === undefined ? '' : (JSON.stringify(base.json) ?? 'undefined');
  const deep = new RegExp(`"${DEEP}(\\d+)"`, 'g');
  let jsonBytes: Buffer = Buffer.from(
    text.replace(deep, (_, n: string) => `${'['.repeat(Number(n))}1${']'.repeat(Number(n))}`),
  );
  if (r.chance(0.1)) jsonBytes = flip(jsonBytes, r);
  let body: Buffer = Buffer.concat([jsonBytes, base.binary ?? Buffer.alloc(0)]);
  const headers: Record<string, string> = { Host: '127.0.0.1', ...base.headers };
  if (base.headerLength) headers['Inference-Header-Content-Length'] = String(jsonBytes.length);
  if (r.chance(0.15)) {
    const encoding = r.pick(['gzip', 'deflate', 'br', 'gzip, deflate', 'identity', 'GZIP']);
    headers['Content-Encoding'] = encoding;
    if (encoding === 'gzip' && r.chance(0.7)) body = zlib.gzipSync(body);
    else if (encoding === 'deflate' && r.chance(0.7)) body = zlib.deflateSync(body);
    // A small bomb: inflates past the test server's 256 KiB limit.
    if (r.chance(0.2)) body = zlib.gzipSync(Buffer.alloc(r.pick([300_000, 4_000_000])));
    if (r.chance(0.2)) body = body.subarray(0, r.int(body.length + 1));
  }
  if (r.chance(0.15))
    body = r.chance(0.5)
      ? body.subarray(0, r.int(body.length + 1))
      : Buffer.concat([body, Buffer.alloc(r.int(100), 0x41)]);
  if (r.chance(0.1)) body = flip(body, r);
  let length = String(body.length);
  if (r.chance(0.1))
    length = r.pick([
      String(body.length + 1 + r.int(10)),
      String(Math.max(0, body.length - 1 - r.int(10))),
      '-1',
      'abc',
      '99999999999',
      '1e3',
      '',
    ]);
  if (r.chance(0.1))
    headers['Inference-Header-Content-Length'] = r.pick([
      '-1',
      'x',
      '99999',
      '0',
      '1.5',
      String(r.int(body.length + 2)),
    ]);
  if (r.chance(0.05)) headers['Transfer-Encoding'] = 'chunked';
  if (r.chance(0.05))
    headers[r.pick(['X-Junk', 'Content-Type', 'Expect'])] = r.pick([
      '100-continue',
      'a'.repeat(r.int(20_000)),
      '\u00ff\u00fe',
    ]);
  let method = base.method;
  let path = base.path;
  if (r.chance(0.05)) method = r.pick(['PUT', 'DELETE', 'GET', 'POST', 'FOO', '']);
  if (r.chance(0.08))
    path = r.pick([
      `${path}/../../etc/passwd`,
      '/v2/models/%E0%A4%A/infer',
      `/v2/models/${'m'.repeat(9000)}/infer`,
      '/v2/models//infer',
      `${path}?x=${'%'.repeat(10)}`,
      '*',
    ]);
  let head = `${method} ${path} HTTP/1.1\r\n`;
  for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
  if (r.chance(0.97)) head += `Content-Length: ${length}\r\n`;
  if (r.chance(0.03)) head += `Content-Length: ${r.int(50)}\r\n`;
  head += 'Connection: close\r\n\r\n';
  if (r.chance(0.03))
    head = head.replace('\r\n', '\n').replace('HTTP/1.1', r.pick(['HTTP/9.9', 'HTTP/1.1 x', '']));
  return { head, body };
}

function flip(bytes: Buffer, r: Rand): Buffer {
  const out = Buffer.from(bytes);
  for (let i = 0, n = 1 + r.int(4); i < n && out.length > 0; i++) out[r.int(out.length)] = r.int(256);
  return out;
}

/** `count` HTTP cases from `seed`. */
export function httpCorpus(seed: number, count: number): HttpCase[] {
  const r = makeRand(seed);
  return Array.from({ length: count }, (_, i) => {
    const base = baseRequest(r);
    if (base.json !== undefined && r.chance(0.6)) {
      for (let k = 0, n = 1 + r.int(3); k < n; k++) base.json = mutateJson(base.json, r);
    }
    const { head, body } = serialise(base, r);
    return {
      what: `http #${i} ${base.method} ${base.path}`,
      bytes: Buffer.concat([Buffer.from(head, 'latin1'), body]),
    };
  });
}

/** A ModelInferRequest as protobufjs objects take it (camelCase field names). */
function inferMessage(r: Rand): Record<string, unknown> {
  const typed = r.chance(0.3);
  return {
    modelName: r.pick(['simple', 'simple', 'simple', 'nobatch', 'strings', 'nope', '']),
    id: 'fuzz',
    inputs: ['INPUT0', 'INPUT1'].map((name) => ({
      name,
      datatype: 'INT32',
      shape: [1, 16],
      ...(typed ? { contents: { intContents: seq(16) } } : {}),
    })),
    outputs: r.chance(0.3)
      ? [{ name: 'OUTPUT0', parameters: { classification: { int64Param: r.pick([3, -1, 0, 1e9]) } } }]
      : [],
    rawInputContents: typed ? [] : [int32Bytes(seq(16)), int32Bytes(seq(16))],
  };
}

/** Mutates a message object: shapes, datatypes, sizes, mixed contents, parameters. */
function mutateMessage(msg: Record<string, unknown>, r: Rand): void {
  const inputs = msg.inputs as Record<string, unknown>[];
  if (inputs.length === 0) inputs.push({ name: 'INPUT0', datatype: 'INT32', shape: [1, 16] });
  const input = r.pick(inputs);
  switch (r.int(9)) {
    case 0:
      input.shape = r.pick([[-1, 16], [1e12, 1e12], [], [0, 16], [1, 15], [2 ** 31, 2], Array(70).fill(1)]);
      break;
    case 1:
      input.datatype = r.pick(['FP16', 'BYTES', 'BOOL', '', 'TYPE_INT32', 'INT64', 'x'.repeat(1000)]);
      break;
    case 2:
      msg.rawInputContents = r.pick([
        [Buffer.alloc(3)],
        [Buffer.alloc(0), Buffer.alloc(64)],
        [Buffer.alloc(64), Buffer.alloc(64), Buffer.alloc(64)],
        [Buffer.alloc(1 << 20), Buffer.alloc(64)],
      ]);
      break;
    case 3:
      input.contents = r.pick([
        { intContents: [1, 2, 3] },
        { fp32Contents: seq(16) },
        { bytesContents: [Buffer.from('a')] },
        { int64Contents: seq(16) },
      ]);
      break;
    case 4:
      msg.parameters = {
        timeout: { int64Param: r.pick([-1, 0, 1, 1e15]) },
        [r.pick(['priority', 'binary_data_output', 'x'])]: { stringParam: 'y' },
      };
      break;
    case 5:
      input.name = r.pick(['', 'INPUT0', 'BOGUS', '\u0000']);
      break;
    case 6:
      msg.inputs = [];
      break;
    case 7:
      msg.modelVersion = r.pick(['1', '99', '-1', 'x', '']);
      break;
    default:
      msg.outputs = [
        { name: r.pick(['OUTPUT0', 'NOPE', '']), parameters: { classification: { r: 1, stringParam: 'x' } } },
      ];
  }
}

/** `count` gRPC cases from `seed`; `encode` turns a message object into ModelInferRequest bytes. */
export function grpcCorpus(
  seed: number,
  count: number,
  encode: (msg: Record<string, unknown>) => Buffer,
): GrpcCase[] {
  const r = makeRand(seed);
  const methods = [
    'ModelInfer',
    'ModelInfer',
    'ModelInfer',
    'ModelMetadata',
    'ModelConfig',
    'ModelStatistics',
    'RepositoryIndex',
    'ServerLive',
  ];
  return Array.from({ length: count }, (_, i) => {
    const msg = inferMessage(r);
    for (let k = 0, n = r.int(3); k < n; k++) mutateMessage(msg, r);
    let bytes = encode(msg);
    if (r.chance(0.2)) bytes = r.chance(0.5) ? flip(bytes, r) : bytes.subarray(0, r.int(bytes.length + 1));
    const method = r.pick(methods);
    return { what: `grpc #${i} ${method}`, method, bytes };
  });
}
