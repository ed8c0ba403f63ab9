/**
 * The checks Triton makes on a completed config (model_config_utils.cc), in its words: validateConfig when it reads
 * the config (a failure there is a "failed to poll"), validateIo when it creates the model (a failure is the
 * version's load failure). Not all of Triton's checks: the ones a hand-written config most often trips on
 * (platform and backend, max_batch_size, preferred batch sizes, tensor names, types, dims and reshapes).
 */
import type { ModelConfigJson, ModelTensorConfigJson } from './types.ts';

/** Backends Triton knows by platform; any other backend may name any platform. */
const PLATFORMS_OF: Readonly<Record<string, readonly string[]>> = {
  tensorflow: ['tensorflow_graphdef', 'tensorflow_savedmodel'],
  tensorrt: ['tensorrt_plan'],
  onnxruntime: ['onnxruntime_onnx'],
  pytorch: ['pytorch_libtorch'],
};

/** Triton's ValidateModelConfig (the part listed above); throws its message. */
export function validateConfig(c: ModelConfigJson): void {
  if (!c.name) throw new Error("model configuration must specify 'name'");
  if (!c.backend && c.platform !== 'ensemble')
    throw new Error(`unexpected platform type '${c.platform}' for ${c.name}`);
  const platforms = PLATFORMS_OF[c.backend];
  if (platforms && !platforms.includes(c.platform))
    throw new Error(`unexpected 'platform' and 'backend' pair, got:${c.platform}, ${c.backend}`);
  if (c.max_batch_size < 0) throw new Error(`'max_batch_size' must be non-negative value for ${c.name}`);
  for (const size of c.dynamic_batching?.preferred_batch_size ?? []) {
    if (size <= 0) throw new Error(`dynamic batching preferred size must be positive for ${c.name}`);
    if (size > c.max_batch_size)
      throw new Error(`dynamic batching preferred size must be <= max batch size for ${c.name}`);
  }
}

/** Triton's ValidateModelIOConfig (the shape part): every input and output named, typed and with valid dims. */
export function validateIo(c: ModelConfigJson): void {
  const check = (io: ModelTensorConfigJson, kind: string) => {
    const problem = ioProblem(io, c.max_batch_size, kind, c.platform);
    if (problem) throw new Error(`${problem} for ${c.name}`);
  };
  for (const io of c.input) check(io, 'model input ');
  for (const io of c.output) check(io, 'model output ');
}

function ioProblem(
  io: ModelTensorConfigJson,
  maxBatch: number,
  prefix: string,
  platform: string,
): string | undefined {
  if (!io.name) return `${prefix}must specify 'name'`;
  const named = `${prefix}'${io.name}' `;
  if (!io.data_type || io.data_type === 'TYPE_INVALID') return `${named}must specify 'data_type'`;
  if (io.dims.length === 0) return `${named}must specify 'dims'`;
  const reshape = io.reshape?.shape;
  if (reshape && reshape.length === 0 && maxBatch === 0)
    return `${named}cannot have empty reshape for non-batching model as scalar tensors are not supported`;
  const bad = (dims: readonly number[]) => dims.some((d) => d < 1 && d !== -1);
  if (bad(io.dims))
    return `${named}dimension must be integer >= 1, or -1 to indicate a variable-size dimension`;
  if (reshape) {
    if (bad(reshape))
      return `${named}reshape dimensions must be integer >= 1, or -1 to indicate a variable-size dimension`;
    const count = (dims: readonly number[]) => (dims.includes(-1) ? -1 : dims.reduce((a, b) => a * b, 1));
    const [from, to] = [count(io.dims), reshape.length === 0 ? 0 : count(reshape)];
    if (from !== to && (to !== 0 || from !== 1)) return `${named}has different size for dims and reshape`;
  }
  if (
    prefix === 'model input ' &&
    (io.format === 'FORMAT_NHWC' || io.format === 'FORMAT_NCHW') &&
    io.dims.length !== 3
  )
    return 'model input NHWC/NCHW require 3 dims';
  if (platform !== 'tensorrt_plan' && io.is_shape_tensor)
    return 'shape tensors are only supported for TensorRT platform';
  return undefined;
}
