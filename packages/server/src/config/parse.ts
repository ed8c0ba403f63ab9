/**
 * config.pbtxt (protobuf text format) and JSON configs → ModelConfigJson, Triton's JSON form of a model config.
 * Parsing is @bufbuild/protobuf's against proto/model_config.proto, so unknown fields and bad syntax are errors.
 * What Triton fills in at load (backend, instance groups, defaults) is config/normalize.ts.
 */
import { type DescMessage, fromJson, type JsonValue, ScalarType, toJson } from '@bufbuild/protobuf';
import { fromText } from '@bufbuild/protobuf/txtpb';
import { modelConfigSchema } from './schema.ts';
import type { ModelConfigJson } from './types.ts';

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

/**
 * Triton's JSON form: int64 fields as JSON numbers (model_config_utils fixes protobuf's string form) and fields
 * in the order model_config.proto declares them (protobuf's JSON printer in C++; @bufbuild sorts by number).
 */
function toConfigJson(schema: DescMessage, json: JsonValue): ModelConfigJson {
  return tritonForm(schema, json) as unknown as ModelConfigJson;
}

const INT64_TYPES = new Set([
  ScalarType.INT64,
  ScalarType.UINT64,
  ScalarType.SINT64,
  ScalarType.FIXED64,
  ScalarType.SFIXED64,
]);

function tritonForm(desc: DescMessage, json: JsonValue): JsonValue {
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
          obj[key] = value.map((v) => tritonForm(sub, v));
        }
        break;
      case 'message':
        obj[key] = tritonForm(field.message, value);
        break;
      case 'map':
        if (field.mapKind === 'message' && typeof value === 'object' && value !== null) {
          const sub = field.message;
          for (const [k, v] of Object.entries(value as Record<string, JsonValue>)) {
            (value as Record<string, JsonValue>)[k] = tritonForm(sub, v);
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
  const ordered: Record<string, JsonValue> = {};
  for (const field of desc.fields) if (obj[field.name] !== undefined) ordered[field.name] = obj[field.name]!;
  return ordered;
}
