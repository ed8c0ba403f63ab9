// What the minimal scripts share: a warm-up (WARMUP), one measured window, the request, and the
// window mark (a Gauge set once per VU) that tells the bench when the window started.
import encoding from 'k6/encoding';
import exec from 'k6/execution';
import { Gauge } from 'k6/metrics';

const windowStart = new Gauge('k6_triton_window_start_ms');
let marked = false;

/** Marks the window's start once per VU. */
export function mark() {
  if (marked) return;
  marked = true;
  windowStart.add(exec.scenario.startTime);
}

/** VUS closed-loop VUs: WARMUP of warm-up, then DURATION measured. */
export function options(metric) {
  const vus = Number(__ENV.VUS || 1);
  const warmup = __ENV.WARMUP || '1s';
  return {
    scenarios: {
      warm: { executor: 'constant-vus', vus, duration: warmup, exec: 'warm', gracefulStop: '0s' },
      c: {
        executor: 'constant-vus',
        vus,
        duration: __ENV.DURATION || '4s',
        startTime: warmup,
        exec: 'measure',
      },
    },
    summaryTrendStats: ['avg', 'p(50)', 'p(99)', 'count'],
    thresholds: { [`${metric}{scenario:c}`]: ['max>=0'], k6_triton_window_start_ms: ['value>=0'] },
  };
}

const SIZE = Number(__ENV.TENSOR_BYTES || 3136);
const SHAPE = JSON.parse(__ENV.SHAPE || '[1,1,28,28]');

/** The binary-extension infer request: JSON header, then the tensor's bytes (zeros). */
export function request() {
  const header = JSON.stringify({
    inputs: [{ name: __ENV.INPUT, shape: SHAPE, datatype: 'FP32', parameters: { binary_data_size: SIZE } }],
    outputs: [{ name: __ENV.OUTPUT, parameters: { binary_data: true } }],
  });
  const body = new Uint8Array(header.length + SIZE);
  for (let i = 0; i < header.length; i++) body[i] = header.charCodeAt(i);
  return {
    url: `${__ENV.URL}/v2/models/${__ENV.MODEL}/infer`,
    body: body.buffer,
    params: {
      headers: {
        'Content-Type': 'application/octet-stream',
        'Inference-Header-Content-Length': String(header.length),
      },
      responseType: 'binary',
    },
  };
}

/** The same tensor as a ModelInfer message, in k6's JSON mapping (bytes as base64). */
export function grpcRequest() {
  return {
    model_name: __ENV.MODEL,
    inputs: [{ name: __ENV.INPUT, datatype: 'FP32', shape: SHAPE }],
    outputs: [{ name: __ENV.OUTPUT }],
    raw_input_contents: [encoding.b64encode(new ArrayBuffer(SIZE), 'std')],
  };
}
