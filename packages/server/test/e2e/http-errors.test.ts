import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@k6-triton/server';
import { binaryBody, http, int32Bytes, makeRepository, removeRepository, start } from '../helpers.ts';
import { FAILING, HALVES, NOBATCH, SIMPLE } from '../repo-fixtures.ts';

const seq = (n: number) => Array.from({ length: n }, (_, i) => i);
const input = (name: string, shape: number[], datatype = 'INT32', data?: unknown[]) => ({
  name,
  shape,
  datatype,
  data: data ?? seq(shape.reduce((a, b) => a * b, 1)),
});

describe('HTTP infer errors', () => {
  let server: RunningServer;
  let repo: string;
  beforeAll(async () => {
    repo = makeRepository({ simple: SIMPLE, nobatch: NOBATCH, halves: HALVES, failing: FAILING });
    server = await start({ modelRepository: repo, maxBody_bytes: 4096 });
  });
  afterAll(async () => {
    await server.stop();
    removeRepository(repo);
  });

  const infer = (body: object | string, model = 'simple') =>
    http(server, 'POST', `/v2/models/${model}/infer`, typeof body === 'string' ? body : JSON.stringify(body));

  const cases: [string, object, number, string][] = [
    [
      'a wrong input name',
      { inputs: [input('INPUT0', [1, 16]), input('BOGUS', [1, 16])] },
      400,
      "unexpected inference input 'BOGUS' for model 'simple'",
    ],
    [
      'a wrong shape',
      { inputs: [input('INPUT0', [1, 15]), input('INPUT1', [1, 16])] },
      400,
      "unexpected shape for input 'INPUT0' for model 'simple'. Expected [-1,16], got [1,15].",
    ],
    [
      'a wrong datatype',
      { inputs: [input('INPUT0', [1, 16], 'FP32'), input('INPUT1', [1, 16])] },
      400,
      "inference input 'INPUT0' data-type is 'FP32', but model 'simple' expects 'INT32'",
    ],
    [
      'a data count that does not fit the shape',
      { inputs: [input('INPUT0', [1, 16], 'INT32', seq(15)), input('INPUT1', [1, 16])] },
      500,
      "Unable to parse 'data': Shape does not match true shape of 'data' field",
    ],
    [
      'a batch above max_batch_size',
      { inputs: [input('INPUT0', [9, 16]), input('INPUT1', [9, 16])] },
      400,
      "inference request batch-size must be <= 8 for 'simple'",
    ],
    [
      'a missing input',
      { inputs: [input('INPUT0', [1, 16])] },
      400,
      "[request id: <id_unknown>] expected 2 inputs but got 1 inputs for model 'simple'. Got input(s) ['INPUT0'], but missing required input(s) ['INPUT1']. Please provide all required input(s).",
    ],
    [
      'an unknown requested output',
      { inputs: [input('INPUT0', [1, 16]), input('INPUT1', [1, 16])], outputs: [{ name: 'NOPE' }] },
      400,
      "unexpected inference output 'NOPE' for model 'simple'",
    ],
    [
      'inputs with different batch sizes',
      { inputs: [input('INPUT0', [1, 16]), input('INPUT1', [2, 16])] },
      400,
      // Triton walks a request's inputs newest first: INPUT1 sets the batch size, INPUT0 differs.
      "input 'INPUT0' batch size does not match other inputs for 'simple'",
    ],
    [
      'no inputs array',
      { outputs: [] },
      500,
      "Unable to parse 'inputs': attempt to access non-existing object member 'inputs'",
    ],
  ];

  for (const [what, body, status, message] of cases) {
    it(`answers ${status} naming the problem for ${what}`, async () => {
      const res = await infer(body);
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(res.json().error).toContain(message);
    });
  }

  it('refuses FP16 data in JSON as Triton does, in and out', async () => {
    const res = await infer(
      { inputs: [{ name: 'A', shape: [1, 2], datatype: 'FP16', data: [1, 2] }] },
      'halves',
    );
    expect(res.status).toBe(400);
    expect(res.json().error).toBe(
      'receiving FP16 data via JSON is not supported. Please use the binary data format for input A',
    );
    const json = Buffer.from(
      JSON.stringify({
        inputs: [{ name: 'A', shape: [1, 2], datatype: 'FP16', parameters: { binary_data_size: 4 } }],
      }),
    );
    const out = await http(
      server,
      'POST',
      '/v2/models/halves/infer',
      Buffer.concat([json, Buffer.alloc(4)]),
      {
        'Inference-Header-Content-Length': String(json.length),
      },
    );
    expect(out.status).toBe(400);
    expect(out.json().error).toBe(
      'sending FP16 data via JSON is not supported. Please use the binary data format for output',
    );
  });

  it('answers 500 when the backend fails and counts it as a BACKEND failure', async () => {
    const res = await infer({ inputs: [{ name: 'A', shape: [1], datatype: 'INT32', data: [1] }] }, 'failing');
    expect(res.status).toBe(500);
    expect(res.json().error).toBe('simulated backend failure (error_rate)');
    const metrics = await (await fetch(`http://127.0.0.1:${server.metricsPort}/metrics`)).text();
    expect(metrics).toMatch(
      /^nv_inference_request_failure\{model="failing",reason="BACKEND",version="1"\} 1$/m,
    );
  });

  it('prefixes the error with the request id when one is given', async () => {
    const res = await infer({ id: 'abc', inputs: [input('INPUT0', [1, 15]), input('INPUT1', [1, 16])] });
    expect(res.json().error).toMatch(/^\[request id: abc\] unexpected shape/);
  });

  it('answers malformed JSON with 500 in rapidjson words, as Triton does', async () => {
    const res = await infer('{"inputs": [');
    expect(res.status).toBe(500);
    expect(res.json().error).toBe('failed to parse the request JSON buffer: Invalid value. at 12');
  });

  it('answers 400 in text/plain when Inference-Header-Content-Length is beyond the body', async () => {
    const { body } = binaryBody({ inputs: [] }, []);
    const res = await http(server, 'POST', '/v2/models/simple/infer', body, {
      'Inference-Header-Content-Length': String(body.length + 10),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(res.json().error).toBe(
      `inference header size should be in range (0, ${body.length}), got: ${body.length + 10}`,
    );
  });

  it('answers 400 when binary_data_size runs past the body or leaves bytes over', async () => {
    const header = {
      inputs: [
        { name: 'INPUT0', shape: [1, 16], datatype: 'INT32', parameters: { binary_data_size: 64 } },
        { name: 'INPUT1', shape: [1, 16], datatype: 'INT32', parameters: { binary_data_size: 64 } },
      ],
    };
    const short = binaryBody(header, [int32Bytes(seq(16)), int32Bytes(seq(10))]);
    const res = await http(server, 'POST', '/v2/models/simple/infer', short.body, {
      'Inference-Header-Content-Length': String(short.headerLength),
    });
    expect(res.status).toBe(400);
    expect(res.json().error).toMatch(/unexpected size for input 'INPUT1'/);
    const long = binaryBody(header, [int32Bytes(seq(16)), int32Bytes(seq(20))]);
    const res2 = await http(server, 'POST', '/v2/models/simple/infer', long.body, {
      'Inference-Header-Content-Length': String(long.headerLength),
    });
    expect(res2.status).toBe(400);
    expect(res2.json().error).toMatch(/unexpected additional input data/);
  });

  it('answers 400 for a raw binary request of the wrong size', async () => {
    const res = await http(server, 'POST', '/v2/models/nobatch/infer', Buffer.alloc(100), {
      'Inference-Header-Content-Length': '0',
    });
    expect(res.status).toBe(400);
    expect(res.json().error).toContain(
      "input byte size mismatch for input 'raw_input' for model 'nobatch'. Expected 3136, got 100",
    );
  });

  it('answers 400 for a raw binary request to a model with two inputs', async () => {
    const res = await http(server, 'POST', '/v2/models/simple/infer', Buffer.alloc(128), {
      'Inference-Header-Content-Length': '0',
    });
    expect(res.status).toBe(400);
    expect(res.json().error).toMatch(/Raw request must only have 1 input/);
  });

  it('answers 404 for an unknown model', async () => {
    const res = await infer({ inputs: [] }, 'ghost');
    expect(res.status).toBe(404);
    // Triton finds the model before it sets the answer's Content-Type.
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(res.json().error).toBe("Request for unknown model: 'ghost' is not found");
  });

  it('answers 413 for a body above the limit and keeps serving', async () => {
    const res = await http(server, 'POST', '/v2/models/simple/infer', Buffer.alloc(8192, 32));
    expect(res.status).toBe(413);
    expect(res.json().error).toMatch(/larger than the server's limit of 4096 bytes/);
    expect((await http(server, 'GET', '/v2/health/live')).status).toBe(200);
  });

  it('answers 413 for a chunked body that grows past the limit', async () => {
    const status = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(server.httpPort, '127.0.0.1', () => {
        socket.write(
          'POST /v2/models/simple/infer HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n',
        );
        const chunk = 'a'.repeat(3000);
        socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
        socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`);
      });
      let data = '';
      socket.on('data', (d) => {
        data += d.toString();
      });
      socket.on('close', () => resolve(data.split('\r\n')[0]!));
      socket.on('error', reject);
      setTimeout(() => socket.end(), 2000);
    });
    expect(status).toBe('HTTP/1.1 413 Payload Too Large');
  });
});
