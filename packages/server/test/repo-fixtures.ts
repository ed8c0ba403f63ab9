/** config.pbtxt texts of the test repository (written as a Triton user would). */

/** Two INT32 inputs, two outputs, batching up to 8, no dynamic batcher; simulated with no compute time. */
export const SIMPLE = `
name: "simple"
backend: "simulated"
max_batch_size: 8
input [
  { name: "INPUT0" data_type: TYPE_INT32 dims: [ 16 ] },
  { name: "INPUT1" data_type: TYPE_INT32 dims: [ 16 ] }
]
output [
  { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] },
  { name: "OUTPUT1" data_type: TYPE_INT32 dims: [ 4 ] }
]
parameters { key: "compute_ms" value: { string_value: "0" } }
`;

/** No batch dimension, one FP32 input (raw binary requests), like the catalog's MNIST. */
export const NOBATCH = `
name: "nobatch"
backend: "simulated"
max_batch_size: 0
input [ { name: "input.1" data_type: TYPE_FP32 dims: [ 1, 1, 28, 28 ] } ]
output [ { name: "output" data_type: TYPE_FP32 dims: [ 1, 10 ] } ]
parameters { key: "compute_ms" value: { string_value: "0" } }
`;

/** A BYTES model. */
export const STRINGS = `
name: "strings"
backend: "simulated"
max_batch_size: 4
input [ { name: "TEXT" data_type: TYPE_STRING dims: [ 2 ] } ]
output [ { name: "LABEL" data_type: TYPE_STRING dims: [ 1 ] } ]
parameters { key: "compute_ms" value: { string_value: "0" } }
`;

/** FP16 in and out (JSON is refused both ways, as in Triton). */
export const HALVES = `
name: "halves"
backend: "simulated"
max_batch_size: 4
input [ { name: "A" data_type: TYPE_FP16 dims: [ 2 ] } ]
output [ { name: "B" data_type: TYPE_FP16 dims: [ 2 ] } ]
parameters { key: "compute_ms" value: { string_value: "0" } }
`;

/** A simulated model whose every execution fails (error_rate 1). */
export const FAILING = `
name: "failing"
backend: "simulated"
max_batch_size: 0
input [ { name: "A" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "B" data_type: TYPE_INT32 dims: [ 1 ] } ]
parameters { key: "compute_ms" value: { string_value: "0" } }
parameters { key: "error_rate" value: { string_value: "1" } }
`;

/**
 * The "gate" test backend (helpers.ts gateBackend), one instance, no dynamic batcher: while one request
 * executes on the gate, the next waits in the queue.
 */
export const GATED = `
name: "gated"
backend: "gate"
max_batch_size: 0
input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 2 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
`;

/** A simulated model named "slow" whose every execution takes `compute_ms` (timers, no CPU). */
export function slowModel(compute_ms: number): string {
  return `
name: "slow"
backend: "simulated"
max_batch_size: 0
input [ { name: "A" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "B" data_type: TYPE_INT32 dims: [ 1 ] } ]
parameters { key: "compute_ms" value: { string_value: "${compute_ms}" } }
`;
}
