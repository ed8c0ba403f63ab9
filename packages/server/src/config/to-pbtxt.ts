/**
 * ModelConfigJson → config.pbtxt text (protobuf text format, what Triton reads), laid out as Triton's own examples
 * are: `dims: [ 3, 224, 224 ]`, `input [ { ... } ]`. The config goes through proto/model_config.proto first, so a
 * field Triton does not know is an error here, not at load; fields at their default value are left out.
 */
import {
  type DescField,
  type DescMessage,
  fromJson,
  type JsonValue,
  ScalarType,
  toJson,
} from '@bufbuild/protobuf';
import { modelConfigSchema } from './schema.ts';
import type { ModelConfigJson } from './types.ts';

type JsonObject = { [key: string]: JsonValue };

const INDENT = '  ';

/** Writes a config in Triton's text format, ending with a newline. */
export function configToPbtxt(config: ModelConfigJson): string {
  const schema = modelConfigSchema();
  let json: JsonValue;
  try {
    json = toJson(schema, fromJson(schema, config as unknown as JsonValue), { useProtoFieldName: true });
  } catch (err) {
    throw new Error(
      `config of model '${config.name}' is not a Triton model config: ${(err as Error).message}`,
    );
  }
  // max_batch_size 0 is the default, but a reader should see it: it decides whether dims carry the batch dim.
  const top = { max_batch_size: 0, ...(json as JsonObject) };
  return `${fieldLines(schema, top, '').join('\n')}\n`;
}

function fieldLines(desc: DescMessage, json: JsonObject, indent: string): string[] {
  const lines: string[] = [];
  for (const field of desc.fields) {
    const value = json[field.name];
    if (value === undefined || value === null) continue;
    const key = `${indent}${field.name}`;
    switch (field.fieldKind) {
      case 'scalar':
      case 'enum':
        lines.push(`${key}: ${scalarText(field, value)}`);
        break;
      case 'message':
        lines.push(...block(key, field.message, value as JsonObject, indent));
        break;
      case 'list': {
        const items = value as JsonValue[];
        if (field.listKind !== 'message') {
          lines.push(`${key}: [ ${items.map((v) => scalarText(field, v)).join(', ')} ]`);
          break;
        }
        lines.push(`${key} [`);
        items.forEach((item, i) => {
          const body = block(`${indent}${INDENT}`, field.message, item as JsonObject, `${indent}${INDENT}`);
          if (i < items.length - 1) body[body.length - 1] += ',';
          lines.push(...body);
        });
        lines.push(`${indent}]`);
        break;
      }
      case 'map':
        for (const [k, v] of Object.entries(value as JsonObject)) {
          const inner = `${indent}${INDENT}`;
          const keyText = field.mapKey === ScalarType.STRING ? JSON.stringify(k) : k;
          const valueLines =
            field.mapKind === 'message'
              ? block(`${inner}value`, field.message, v as JsonObject, inner)
              : [`${inner}value: ${field.mapKind === 'enum' ? String(v) : scalarOf(field.scalar, v)}`];
          lines.push(`${key} {`, `${inner}key: ${keyText}`, ...valueLines, `${indent}}`);
        }
        break;
      default:
        break;
    }
  }
  return lines;
}

/** `key { ... }` (or `{ ... }` inside a list, where `key` is only the indent). */
function block(key: string, desc: DescMessage, json: JsonObject, indent: string): string[] {
  const body = fieldLines(desc, json, `${indent}${INDENT}`);
  const open = key.trim() === '' ? `${key}{` : `${key} {`;
  return body.length === 0 ? [`${open} }`] : [open, ...body, `${indent}}`];
}

function scalarText(field: DescField, value: JsonValue): string {
  if (field.fieldKind === 'enum' || (field.fieldKind === 'list' && field.listKind === 'enum'))
    return String(value);
  const scalar = field.fieldKind === 'scalar' || field.fieldKind === 'list' ? field.scalar : undefined;
  return scalarOf(scalar, value);
}

function scalarOf(scalar: ScalarType | undefined, value: JsonValue): string {
  // JSON carries 64-bit integers as strings; text format writes them bare. Only string fields are quoted.
  return scalar === ScalarType.STRING ? JSON.stringify(value) : String(value);
}
