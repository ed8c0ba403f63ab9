/**
 * config.pbtxt (protobuf text format) and JSON configs → ModelConfigJson, Triton's JSON form of a model config.
 * Parsing is @bufbuild/protobuf's against proto/model_config.proto, so unknown fields and bad syntax are errors.
 */
import { type DescMessage, fromJson, type JsonValue, ScalarType, toJson } from '@bufbuild/protobuf';
import { fromText } from '@bufbuild/protobuf/txtpb';
import { modelConfigSchema } from './schema.ts';
import type { ModelConfigJson } from './types.ts';

const BACKEND_BY_PLATFORM: Readonly<Record<string, string>> = {
  onnxruntime_onnx: 'onnxruntime',
  tensorrt_plan: 'tensorrt',
  tensorflow_savedmodel: 'tensorflow',
  tensorflow_graphdef: 'tensorflow',
  pytorch_libtorch: 'pytorch',
};

/** Parses config.pbtxt text; throws naming the file and the parser's complaint. */
export function parsePbtxt(text: string, source = 'config.pbtxt'): ModelConfigJson {
  const schema = modelConfigSchema();
  let message: ReturnType<typeof fromText>;
  try {
    message = fromText(schema, text);
  } catch (err) {
    throw new Error(`invalid ${source}: ${(err as Error).message}`);
  }
  return toConfigJson(schema, toJson(schema, message, { useProtoFieldName: true, alwaysEmitImplicit: true }));
}

/** Parses a JSON model config (Triton's form, as the load API's "config" parameter carries it). */
export function parseConfigJson(json: unknown, source = 'config'): ModelConfigJson {
  const schema = modelConfigSchema();
  let message: ReturnType<typeof fromJson>;
  try {
    message = fromJson(schema, json as JsonValue);
  } catch (err) {
    throw new Error(`invalid ${source}: ${(err as Error).message}`);
  }
  return toConfigJson(schema, toJson(schema, message, { useProtoFieldName: true, alwaysEmitImplicit: true }));
}

/** Fills what Triton fills when a config omits it: backend from platform, one instance, model name. */
export function completeConfig(config: ModelConfigJson, modelName: string): ModelConfigJson {
  const out: ModelConfigJson = { ...config };
  if (!out.name) out.name = modelName;
  if (!out.backend && out.platform) out.backend = BACKEND_BY_PLATFORM[out.platform] ?? '';
  if (!out.platform && out.backend === 'onnxruntime') out.platform = 'onnxruntime_onnx';
  if (!out.instance_group || out.instance_group.length === 0) {
    out.instance_group = [{ name: modelName, kind: 'KIND_CPU', count: 1, gpus: [] }];
  }
  out.instance_group = out.instance_group.map((g, i) => ({
    ...g,
    name: g.name || `${modelName}${out.instance_group.length > 1 ? `_${i}` : ''}`,
    count: g.count && g.count > 0 ? g.count : 1,
  }));
  if (!out.version_policy || Object.keys(out.version_policy).length === 0) {
    out.version_policy = { latest: { num_versions: 1 } };
  }
  return out;
}

/**
 * Triton prints int64 fields as JSON numbers (model_config_utils fixes protobuf's string form);
 * walk the schema and do the same.
 */
function toConfigJson(schema: DescMessage, json: JsonValue): ModelConfigJson {
  return fixInt64(schema, json) as unknown as ModelConfigJson;
}

const INT64_TYPES = new Set([
  ScalarType.INT64,
  ScalarType.UINT64,
  ScalarType.SINT64,
  ScalarType.FIXED64,
  ScalarType.SFIXED64,
]);

function fixInt64(desc: DescMessage, json: JsonValue): JsonValue {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return json;
  const obj = json as Record<string, JsonValue>;
  for (const field of desc.fields) {
    const key = field.name;
    const value = obj[key];
    if (value === undefined) continue;
    switch (field.fieldKind) {
      case 'scalar':
        if (INT64_TYPES.has(field.scalar) && typeof value === 'string') obj[key] = Number(value);
        break;
      case 'list':
        if (!Array.isArray(value)) break;
        if (field.listKind === 'scalar' && INT64_TYPES.has(field.scalar)) obj[key] = value.map(Number);
        else if (field.listKind === 'message') {
          const sub = field.message;
          obj[key] = value.map((v) => fixInt64(sub, v));
        }
        break;
      case 'message':
        obj[key] = fixInt64(field.message, value);
        break;
      case 'map':
        if (field.mapKind === 'message' && typeof value === 'object' && value !== null) {
          const sub = field.message;
          for (const [k, v] of Object.entries(value as Record<string, JsonValue>)) {
            (value as Record<string, JsonValue>)[k] = fixInt64(sub, v);
          }
        } else if (field.mapKind === 'scalar' && INT64_TYPES.has(field.scalar)) {
          for (const [k, v] of Object.entries(value as Record<string, JsonValue>)) {
            (value as Record<string, JsonValue>)[k] = Number(v);
          }
        }
        break;
      default:
        break;
    }
  }
  return obj;
}
