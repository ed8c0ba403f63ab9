/**
 * What Triton fills in when it loads a config (model_config_utils.cc: AutoCompleteBackendFields,
 * NormalizeModelConfig, NormalizeInstanceGroup), so GET /v2/models/M/config answers the same keys and values:
 * backend / platform / default_model_filename from each other, version policy, preferred batch size,
 * pinned-memory optimization, instance group names, kinds and counts.
 */
import { parseConfigJson } from './parse.ts';
import type { InstanceGroupJson, ModelConfigJson } from './types.ts';

/** Triton's SEQUENCE_IDLE_DEFAULT_MICROSECONDS. */
const SEQUENCE_IDLE_DEFAULT_US = 1_000_000;

/** Backends whose CPU instance groups default to two instances (SetDefaultInstanceCount). */
const TWO_CPU_INSTANCES = new Set(['onnxruntime', 'tensorflow']);

/**
 * Backends Triton recognises by platform, default model file, or that file in the first version folder (`folder`:
 * whether a folder of that name counts too), in the order it tries them.
 */
const BACKENDS: readonly { backend: string; platform?: string; file: string; folder: boolean }[] = [
  { backend: 'tensorrt', platform: 'tensorrt_plan', file: 'model.plan', folder: false },
  { backend: 'onnxruntime', platform: 'onnxruntime_onnx', file: 'model.onnx', folder: true },
  { backend: 'openvino', file: 'model.xml', folder: true },
  { backend: 'pytorch', platform: 'pytorch_libtorch', file: 'model.pt', folder: false },
  { backend: 'python', file: 'model.py', folder: true },
];

/** The entries of a model's first version folder: name → whether it is a folder. */
export type VersionFolder = ReadonlyMap<string, boolean>;

const TF_PLATFORMS: Readonly<Record<string, string>> = {
  tensorflow_savedmodel: 'model.savedmodel',
  tensorflow_graphdef: 'model.graphdef',
};

/**
 * A parsed config completed as Triton completes it at load, in Triton's JSON form; `versionFolder` (the model's
 * first version folder, when it has one) lets a config that names no backend take it from the model file there.
 * Throws, as Triton's poll does, when nothing says the backend and the model name is not 'model.<backend>'.
 */
export function completeConfig(
  config: ModelConfigJson,
  modelName: string,
  versionFolder?: VersionFolder,
): ModelConfigJson {
  const out: ModelConfigJson = structuredClone(config);
  if (!out.name) out.name = modelName;
  fillBackendFields(out, modelName, versionFolder);
  if (!out.version_policy || Object.keys(out.version_policy).length === 0) {
    out.version_policy = { latest: { num_versions: 1 } };
  }
  const defaultPreferred = out.max_batch_size > 0 ? [out.max_batch_size] : [];
  if (out.dynamic_batching && (out.dynamic_batching.preferred_batch_size ?? []).length === 0) {
    out.dynamic_batching.preferred_batch_size = defaultPreferred;
  }
  const sequence = out.sequence_batching as
    | { max_sequence_idle_microseconds?: number; oldest?: { preferred_batch_size?: number[] } }
    | undefined;
  if (sequence) {
    if (!sequence.max_sequence_idle_microseconds)
      sequence.max_sequence_idle_microseconds = SEQUENCE_IDLE_DEFAULT_US;
    if (sequence.oldest && (sequence.oldest.preferred_batch_size ?? []).length === 0)
      sequence.oldest.preferred_batch_size = defaultPreferred;
  }
  // An ensemble has neither instances nor an optimization policy of its own.
  if (!out.ensemble_scheduling) {
    const optimization = (out.optimization ?? {}) as Record<string, unknown>;
    optimization.input_pinned_memory ??= { enable: true };
    optimization.output_pinned_memory ??= { enable: true };
    out.optimization = optimization;
    out.instance_group = instanceGroups(out.instance_group ?? [], out.name, out.backend);
  }
  return parseConfigJson(out, `config of model '${modelName}'`);
}

/** AutoCompleteBackendFields: backend, platform and default_model_filename from each other or the model file. */
function fillBackendFields(c: ModelConfigJson, modelName: string, folder?: VersionFolder): void {
  let file = String(c.default_model_filename ?? '');
  // Only a config that says neither platform nor model file looks into the version folder.
  const look = !c.platform && !file && folder !== undefined;
  if (!c.platform && (!c.backend || c.backend === 'tensorflow')) {
    const platform = Object.entries(TF_PLATFORMS).find(([, f]) => f === file)?.[0];
    if (platform) c.platform = platform;
    else if (look && folder.get('model.graphdef') === false) c.platform = 'tensorflow_graphdef';
    else if (look && folder.get('model.savedmodel') === true) c.platform = 'tensorflow_savedmodel';
  }
  const tfFile = TF_PLATFORMS[c.platform];
  if (tfFile) {
    c.backend ||= 'tensorflow';
    c.default_model_filename = file || tfFile;
    return;
  }
  if (!c.backend) {
    const hint =
      BACKENDS.find((b) => (b.platform && b.platform === c.platform) || b.file === file) ??
      (look
        ? BACKENDS.find((b) => folder.get(b.file) === false || (b.folder && folder.has(b.file)))
        : undefined);
    if (hint) c.backend = hint.backend;
  }
  const known = BACKENDS.find((b) => b.backend === c.backend);
  if (known) {
    if (!c.platform && known.platform) c.platform = known.platform;
    // A PyTorch model run by the Python runtime keeps its own file name.
    if (!file && !(c.backend === 'pytorch' && c.runtime === 'model.py')) file = known.file;
    c.default_model_filename = file;
    return;
  }
  if (!c.backend && !c.platform && !file) {
    const dot = modelName.indexOf('.');
    if (dot < 0) {
      throw new Error(
        `Invalid model name: Could not determine backend for model '${modelName}' with no backend in model ` +
          "configuration. Expected model name of the form 'model.<backend_name>'.",
      );
    }
    c.backend = modelName.slice(dot + 1);
    c.default_model_filename = `model.${c.backend}`;
  }
}

/**
 * NormalizeInstanceGroup on a server without GPUs: one group named after the model when none is given, then
 * `<model>_<index>` for unnamed groups, KIND_AUTO as KIND_CPU, and the backend's default count.
 */
function instanceGroups(groups: InstanceGroupJson[], model: string, backend: string): InstanceGroupJson[] {
  const list = groups.length > 0 ? groups : [{ name: model }];
  return list.map((g, i) => {
    const kind = !g.kind || g.kind === 'KIND_AUTO' ? 'KIND_CPU' : g.kind;
    const fallback = kind === 'KIND_CPU' && TWO_CPU_INSTANCES.has(backend) ? 2 : 1;
    return {
      ...g,
      name: g.name || `${model}_${i}`,
      kind,
      count: g.count && g.count > 0 ? g.count : fallback,
    };
  });
}
