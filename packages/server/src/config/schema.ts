import { fileURLToPath } from 'node:url';
import { create, createFileRegistry, type DescMessage, fromBinary } from '@bufbuild/protobuf';
import {
  type DescriptorProto,
  type FileDescriptorProto,
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
} from '@bufbuild/protobuf/wkt';
import * as protoLoader from '@grpc/proto-loader';

/** The proto/ folder shipped with the project (Triton's protocol and model config schemas). */
export const PROTO_DIR = fileURLToPath(new URL('../../../../proto/', import.meta.url));

let cached: DescMessage | undefined;

/**
 * The inference.ModelConfig message schema, built from proto/model_config.proto.
 * proto-loader (protobufjs) parses the .proto; @bufbuild/protobuf then parses text format and JSON against it.
 */
export function modelConfigSchema(): DescMessage {
  if (cached) return cached;
  const def = protoLoader.loadSync('model_config.proto', { includeDirs: [PROTO_DIR], keepCase: true });
  const type = def['inference.ModelConfig'] as { fileDescriptorProtos?: Buffer[] };
  if (!type?.fileDescriptorProtos) throw new Error('proto/model_config.proto has no inference.ModelConfig');
  const files = type.fileDescriptorProtos.map((b) => fromBinary(FileDescriptorProtoSchema, b));
  qualifyTypeNames(files);
  const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: files }));
  const schema = registry.getMessage('inference.ModelConfig');
  if (!schema) throw new Error('inference.ModelConfig missing from the descriptor registry');
  cached = schema;
  return schema;
}

/**
 * protobufjs writes field type names relative to their scope ("GraphSpec.Shape"); @bufbuild/protobuf wants
 * them fully qualified (".inference.X.GraphSpec.Shape"). Resolve them with protobuf's scoping rules.
 */
function qualifyTypeNames(files: FileDescriptorProto[]): void {
  const known = new Set<string>();
  const collect = (prefix: string, msgs: DescriptorProto[]): void => {
    for (const m of msgs) {
      const fq = `${prefix}.${m.name}`;
      known.add(fq);
      for (const e of m.enumType) known.add(`${fq}.${e.name}`);
      collect(fq, m.nestedType);
    }
  };
  for (const f of files) {
    const pkg = f.package ? `.${f.package}` : '';
    for (const e of f.enumType) known.add(`${pkg}.${e.name}`);
    collect(pkg, f.messageType);
  }
  const resolve = (scope: string, name: string): string => {
    if (name.startsWith('.')) return name;
    for (let s = scope; ; s = s.slice(0, s.lastIndexOf('.'))) {
      const candidate = `${s}.${name}`;
      if (known.has(candidate)) return candidate;
      if (s === '') return `.${name}`;
    }
  };
  const fix = (prefix: string, msgs: DescriptorProto[]): void => {
    for (const m of msgs) {
      const fq = `${prefix}.${m.name}`;
      for (const field of m.field) if (field.typeName) field.typeName = resolve(fq, field.typeName);
      fix(fq, m.nestedType);
    }
  };
  for (const f of files) fix(f.package ? `.${f.package}` : '', f.messageType);
}
