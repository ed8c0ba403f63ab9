/**
 * Triton's generate extension: POST /v2/models/<m>/generate and /generate_stream. The JSON body's keys that
 * name model inputs become inputs (a scalar as shape [1], an array as shape [n]; other keys are ignored, as
 * Triton ignores them), `parameters` the request's parameters. Framing as Triton 2.60.0 sends it (facts in
 * docs/generative-metrics.md): generate answers the model's one response as JSON, or under 200 an error when the
 * model made other than one; generate_stream sends `text/event-stream; charset=utf-8`, one `data: <json>\n\n`
 * per response, no [DONE]; a failure before the first response is an error event under its status (400), a
 * later one an error event under the 200 already sent. A request refused before inference gets plain JSON.
 */
import type http from 'node:http';
import { decodeBytesTensorAsStrings } from '@k6-triton/lib/tensor/bytes.ts';
import { fromConfigDatatype } from '@k6-triton/lib/tensor/datatypes.ts';
import type { TensorData } from '../backends/types.ts';
import type { InferenceCore } from '../core.ts';
import { asServerError, Errors, type ServerError } from '../errors.ts';
import type { InferRequest, InferResult, RequestInput } from '../infer/types.ts';
import { jsonTensorBytes } from './json-tensor.ts';
import { parseRequestJson } from './request-json.ts';
import type { CancelSignal } from '../infer/cancel.ts';

/** The Content-Type of generate_stream. */
export const EVENT_STREAM_TYPE = 'text/event-stream; charset=utf-8';

/** Serves one generate or generate_stream request. */
export async function generate(
  core: InferenceCore,
  route: { model: string; version: string },
  streamed: boolean,
  res: http.ServerResponse,
  body: Buffer,
): Promise<void> {
  const model = core.inferTarget(route.model, route.version);
  const json = parseRequestJson(body);
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw Errors.badRequest('generate request body must be a JSON object');
  }
  const abort = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) abort.abort();
  };
  res.once('close', onClose);
  const request = generateRequest(json as Record<string, unknown>, route, model.config, abort.signal);
  const write = streamed ? streamWriter(res) : undefined;
  const responses: InferResult[] = [];
  try {
    await core.inferStream(request, (result) => (write ? write.response(result) : responses.push(result)));
  } catch (err) {
    const e = asServerError(err);
    // Refused before inference (unknown model, bad inputs): the caller answers plain JSON.
    if (!e.queued || !write) throw e;
    write.error(e);
    return;
  } finally {
    res.off('close', onClose);
  }
  if (write) write.end();
  else if (responses.length === 1) sendJson(res, 200, responseJson(responses[0]!));
  else sendJson(res, 200, { error: Errors.generateNotOneResponse().message });
}

/** The inference request a generate body makes. */
function generateRequest(
  body: Record<string, unknown>,
  route: { model: string; version: string },
  config: { input: { name: string; data_type: string }[] },
  signal: CancelSignal,
): InferRequest {
  const inputs: RequestInput[] = [];
  for (const spec of config.input) {
    if (!(spec.name in body)) continue;
    const value = body[spec.name];
    const data = Array.isArray(value) ? value.flat(Number.POSITIVE_INFINITY) : [value];
    const datatype = fromConfigDatatype(spec.data_type);
    inputs.push({
      name: spec.name,
      datatype,
      shape: [data.length],
      data: jsonTensorBytes(spec.name, datatype, data, data.length, Number.MAX_SAFE_INTEGER),
    });
  }
  const parameters = body.parameters;
  return {
    modelName: route.model,
    modelVersion: route.version,
    id: '',
    inputs,
    parameters:
      parameters && typeof parameters === 'object' && !Array.isArray(parameters)
        ? (parameters as Record<string, unknown>)
        : {},
    signal,
  };
}

/** A response as generate writes it: each output by name (one element as a scalar), then model_name, model_version. */
function responseJson(result: InferResult): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const o of result.outputs) {
    const values = outputValues(o);
    out[o.name] = values.length === 1 ? values[0] : values;
  }
  out.model_name = result.modelName;
  out.model_version = result.modelVersion;
  return out;
}

function outputValues(o: TensorData): unknown[] {
  if (o.datatype === 'BYTES') return decodeBytesTensorAsStrings(o.data);
  const view = new DataView(o.data.buffer, o.data.byteOffset, o.data.length);
  const values: unknown[] = [];
  const read: Partial<Record<string, [number, (at: number) => unknown]>> = {
    BOOL: [1, (at) => view.getUint8(at) !== 0],
    INT32: [4, (at) => view.getInt32(at, true)],
    UINT32: [4, (at) => view.getUint32(at, true)],
    INT64: [8, (at) => Number(view.getBigInt64(at, true))],
    FP32: [4, (at) => view.getFloat32(at, true)],
    FP64: [8, (at) => view.getFloat64(at, true)],
  };
  const reader = read[o.datatype];
  if (!reader) throw Errors.internal(`generate cannot write a ${o.datatype} output ('${o.name}')`);
  for (let at = 0; at < o.data.length; at += reader[0]) values.push(reader[1](at));
  return values;
}

/** Writes SSE events; the headers go out with the first event (its status: 200, or the first error's). */
function streamWriter(res: http.ServerResponse) {
  const head = (status: number) => {
    if (!res.headersSent) res.writeHead(status, { 'Content-Type': EVENT_STREAM_TYPE });
  };
  const event = (value: unknown) => {
    if (!res.writableEnded) res.write(`data: ${JSON.stringify(value)}\n\n`);
  };
  return {
    response(result: InferResult) {
      head(200);
      event(responseJson(result));
    },
    error(e: ServerError) {
      head(e.httpStatus);
      event({ error: e.message });
      res.end();
    },
    end() {
      head(200);
      res.end();
    },
  };
}

function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}
