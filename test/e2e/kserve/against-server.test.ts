/**
 * lib/kserve's pure builders and parsers against the embedded Triton-compatible server over real
 * sockets (127.0.0.1, ephemeral ports): what a k6 scenario sends is what the server accepts.
 */
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBinaryInferRequest } from '../../../lib/kserve/binary.ts';
import {
  buildGrpcInferRequest,
  decodeGrpcInferResponse,
  grpcMethod,
} from '../../../lib/kserve/grpc-messages.ts';
import { buildJsonInferRequest } from '../../../lib/kserve/json.ts';
import { normalizeModelMetadata } from '../../../lib/kserve/metadata.ts';
import { outputProblems } from '../../../lib/kserve/outputs.ts';
import { KSERVE_PATHS } from '../../../lib/kserve/paths.ts';
import { type HttpResponseLike, parseHttpInferResponse } from '../../../lib/kserve/response.ts';
import { normalizeStatistics } from '../../../lib/kserve/stats.ts';
import { encodeTensor } from '../../../lib/tensor/index.ts';
import { getModel } from '../../../models/index.ts';
import { startCatalogServer } from '../../../measure/repository/built-in.ts';
import type { RunningServer } from '@k6-triton/server';

const PROTO_DIR = fileURLToPath(new URL('../../../proto', import.meta.url));

let server: RunningServer;
let baseUrl: string;
let client: grpc.Client;

/** Unary call on the generic client, proto names in and out (as k6 sends; k6 reads camelCase, handled too). */
function unary(method: string, request: object): Promise<Record<string, unknown>> {
  const definition = protoLoader.loadSync('grpc_service.proto', {
    includeDirs: [PROTO_DIR],
    keepCase: true,
    longs: String,
    bytes: String,
    defaults: true,
  });
  const service = (
    grpc.loadPackageDefinition(definition) as unknown as {
      inference: { GRPCInferenceService: grpc.ServiceClientConstructor };
    }
  ).inference.GRPCInferenceService.service;
  const def = service[method]!;
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      `/${grpcMethod(method)}`,
      def.requestSerialize,
      def.responseDeserialize,
      request,
      (error, response) => (error ? reject(error) : resolve(response as Record<string, unknown>)),
    );
  });
}

async function post(
  path: string,
  body: ArrayBuffer | string,
  headers: Record<string, string>,
): Promise<HttpResponseLike> {
  const response = await fetch(baseUrl + path, { method: 'POST', body, headers });
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers.entries()),
    body: await response.arrayBuffer(),
  };
}

beforeAll(async () => {
  server = await startCatalogServer({
    httpPort: 0,
    grpcPort: 0,
    metricsPort: -1,
    simulated: { timeScale: 0 },
  });
  baseUrl = `http://127.0.0.1:${server.httpPort}`;
  client = new grpc.Client(`127.0.0.1:${server.grpcPort}`, grpc.credentials.createInsecure());
});

afterAll(async () => {
  client?.close();
  await server?.stop();
});

describe('lib/kserve against the embedded server', () => {
  it('binary-extension request for resnext101 at batch 2 returns outputs that match the catalog', async () => {
    const model = getModel('resnext101-32x4d');
    const values = new Float32Array(2 * 3 * 224 * 224).fill(0.25);
    const request = buildBinaryInferRequest(
      [{ name: 'INPUT__0', datatype: 'FP32', shape: [2, 3, 224, 224], data: encodeTensor('FP32', values) }],
      { outputs: ['OUTPUT__0'] },
    );
    const response = await post(KSERVE_PATHS.infer(model.name), request.body, request.headers);
    const result = parseHttpInferResponse(response);
    expect(result.modelName).toBe(model.name);
    expect(outputProblems(model.outputs, result, { batchSize: 2, maxBatchSize: model.maxBatchSize })).toEqual(
      [],
    );
    expect(result.outputs[0]!.bytes!.length).toBe(2 * 1000 * 4);
  });

  it('JSON request for bert-base returns JSON outputs of the catalog shape', async () => {
    const model = getModel('bert-base');
    const seq = model.inputs[0]!.dims[0]!;
    const inputs = model.inputs.map((spec) => ({
      name: spec.name,
      datatype: spec.datatype,
      shape: [1, seq],
      data: encodeTensor(spec.datatype, new Array(seq).fill(1)),
    }));
    const request = buildJsonInferRequest(inputs);
    const result = parseHttpInferResponse(
      await post(KSERVE_PATHS.infer(model.name), request.body, request.headers),
    );
    expect(outputProblems(model.outputs, result, { batchSize: 1, maxBatchSize: model.maxBatchSize })).toEqual(
      [],
    );
    expect(result.outputs[0]!.bytes).toBeUndefined();
  });

  it('a wrong-size input is refused by the server with a readable error', async () => {
    const model = getModel('resnext101-32x4d');
    const header = JSON.stringify({
      inputs: [
        { name: 'INPUT__0', shape: [1, 3, 224, 224], datatype: 'FP32', parameters: { binary_data_size: 8 } },
      ],
    });
    const body = new Uint8Array([...new TextEncoder().encode(header), 0, 0, 0, 0, 0, 0, 0, 0]).buffer;
    const response = await post(KSERVE_PATHS.infer(model.name), body, {
      'Inference-Header-Content-Length': String(header.length),
    });
    expect(response.status).toBe(400);
    expect(() => parseHttpInferResponse(response)).toThrow(/infer failed with HTTP 400: .+/);
  });

  it('gRPC ModelInfer with raw_input_contents for dlrm decodes to catalog outputs', async () => {
    const model = getModel('dlrm');
    const batch = 4;
    const request = buildGrpcInferRequest(model.name, [
      {
        name: 'input__0',
        datatype: 'FP32',
        shape: [batch, 13],
        data: encodeTensor('FP32', new Array(batch * 13).fill(0.5)),
      },
      {
        name: 'input__1',
        datatype: 'INT64',
        shape: [batch, 26],
        data: encodeTensor('INT64', new Array(batch * 26).fill(1)),
      },
    ]);
    const result = decodeGrpcInferResponse(await unary('ModelInfer', request));
    expect(result.modelName).toBe(model.name);
    expect(
      outputProblems(model.outputs, result, { batchSize: batch, maxBatchSize: model.maxBatchSize }),
    ).toEqual([]);
  });

  it('HTTP and gRPC metadata and statistics normalise to the same values', async () => {
    const model = getModel('dlrm');
    const httpMeta = normalizeModelMetadata(
      await (await fetch(baseUrl + KSERVE_PATHS.modelMetadata(model.name))).json(),
    );
    const grpcMeta = normalizeModelMetadata(await unary('ModelMetadata', { name: model.name, version: '' }));
    expect(grpcMeta).toEqual(httpMeta);
    expect(httpMeta.inputs.map((t) => t.name)).toEqual(model.inputs.map((t) => t.name));

    const httpStats = normalizeStatistics(
      await (await fetch(baseUrl + KSERVE_PATHS.modelStatistics(model.name))).json(),
    );
    const grpcStats = normalizeStatistics(await unary('ModelStatistics', { name: model.name, version: '' }));
    expect(httpStats[0]!.inferenceCount).toBeGreaterThanOrEqual(4);
    expect(grpcStats[0]!.inferenceCount).toBe(httpStats[0]!.inferenceCount);
    expect(grpcStats[0]!.inference.success.count).toBe(httpStats[0]!.inference.success.count);
  });
});
