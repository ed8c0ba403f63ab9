/**
 * connect(address, {reflect: true}): asks the server's reflection service (grpc.reflection.v1alpha, as
 * k6 does) for its services and their file descriptors, and turns them into method definitions.
 */
import type * as grpcjs from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';
import { methodsOf, type MethodDef } from './grpc-protos.ts';

const REFLECTION_METHOD = '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo';

// The reflection messages (field numbers from grpc/reflection/v1alpha/reflection.proto).
const reflectionRoot = protobuf.Root.fromJSON({
  nested: {
    ServerReflectionRequest: {
      oneofs: { message_request: { oneof: ['file_by_filename', 'file_containing_symbol', 'list_services'] } },
      fields: {
        host: { type: 'string', id: 1 },
        file_by_filename: { type: 'string', id: 3 },
        file_containing_symbol: { type: 'string', id: 4 },
        list_services: { type: 'string', id: 7 },
      },
    },
    ServerReflectionResponse: {
      fields: {
        valid_host: { type: 'string', id: 1 },
        file_descriptor_response: { type: 'FileDescriptorResponse', id: 4 },
        list_services_response: { type: 'ListServiceResponse', id: 6 },
        error_response: { type: 'ErrorResponse', id: 7 },
      },
    },
    FileDescriptorResponse: { fields: { file_descriptor_proto: { rule: 'repeated', type: 'bytes', id: 1 } } },
    ListServiceResponse: { fields: { service: { rule: 'repeated', type: 'ServiceResponse', id: 1 } } },
    ServiceResponse: { fields: { name: { type: 'string', id: 1 } } },
    ErrorResponse: {
      fields: { error_code: { type: 'int32', id: 1 }, error_message: { type: 'string', id: 2 } },
    },
  },
});
const RequestType = reflectionRoot.lookupType('ServerReflectionRequest');
const ResponseType = reflectionRoot.lookupType('ServerReflectionResponse');

interface ReflectionResponse {
  file_descriptor_response?: { file_descriptor_proto: Uint8Array[] };
  list_services_response?: { service: Array<{ name: string }> };
  error_response?: { error_code: number; error_message: string };
}

interface FileProto {
  name?: string;
  dependency?: string[];
}

/** One request/response exchange at a time over the reflection stream. */
class ReflectionSession {
  readonly #call: grpcjs.ClientDuplexStream<Buffer, Buffer>;
  readonly #waiting: Array<{ resolve: (r: ReflectionResponse) => void; reject: (e: Error) => void }> = [];
  #failure: Error | null = null;

  constructor(client: grpcjs.Client, metadata: grpcjs.Metadata, deadline: number) {
    const id = (b: Buffer): Buffer => b;
    this.#call = client.makeBidiStreamRequest(REFLECTION_METHOD, id, id, metadata, { deadline });
    this.#call.on('data', (buf: Buffer) => {
      this.#waiting.shift()?.resolve(ResponseType.toObject(ResponseType.decode(buf)) as ReflectionResponse);
    });
    this.#call.on('error', (err: Error) => this.#fail(err));
    this.#call.on('end', () => this.#fail(new Error('the reflection stream ended early')));
  }

  ask(request: Record<string, string>): Promise<ReflectionResponse> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#call.write(Buffer.from(RequestType.encode(RequestType.fromObject(request)).finish()));
    });
  }

  close(): void {
    this.#call.end();
  }

  #fail(err: Error): void {
    this.#failure ??= err;
    for (const w of this.#waiting.splice(0)) w.reject(this.#failure);
  }
}

/** Fetches the server's services by reflection and returns their methods (k6's reflect: true). */
export async function reflectMethods(
  client: grpcjs.Client,
  metadata: grpcjs.Metadata,
  timeout_ms: number,
): Promise<MethodDef[]> {
  const session = new ReflectionSession(client, metadata, Date.now() + timeout_ms);
  try {
    const listed = await session.ask({ list_services: '' });
    if (listed.error_response) throw new Error(`can't list services: ${listed.error_response.error_message}`);
    const services = (listed.list_services_response?.service ?? [])
      .map((s) => s.name)
      .filter((n) => !n.startsWith('grpc.reflection.'));
    const files = new Map<string, FileProto>();
    const addFiles = (r: ReflectionResponse, what: string): void => {
      if (r.error_response)
        throw new Error(`can't get the descriptor of ${what}: ${r.error_response.error_message}`);
      for (const bytes of r.file_descriptor_response?.file_descriptor_proto ?? []) {
        const fd = descriptor.FileDescriptorProto.decode(bytes) as unknown as FileProto;
        files.set(fd.name ?? `file${files.size}`, fd);
      }
    };
    for (const s of services) addFiles(await session.ask({ file_containing_symbol: s }), s);
    // Servers usually send dependencies along; ask for any that are missing.
    for (let added = true; added; ) {
      added = false;
      for (const fd of [...files.values()]) {
        for (const dep of fd.dependency ?? []) {
          if (files.has(dep)) continue;
          addFiles(await session.ask({ file_by_filename: dep }), dep);
          added = true;
        }
      }
    }
    const root = (protobuf.Root as unknown as { fromDescriptor(d: unknown): protobuf.Root }).fromDescriptor({
      file: [...files.values()],
    });
    root.resolveAll();
    return methodsOf(root);
  } catch (err) {
    throw new Error(`can't fetch the server's descriptors by reflection: ${(err as Error).message}`);
  } finally {
    session.close();
  }
}
