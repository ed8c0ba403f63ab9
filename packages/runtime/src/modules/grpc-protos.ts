/** Loading .proto files for k6/net/grpc Client.load: methods by full name, with their message types. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import protobuf from 'protobufjs';

/** One RPC method as the client calls it. */
export interface MethodDef {
  /** "/package.Service/Method", as k6 keys methods. */
  path: string;
  service: string;
  name: string;
  requestType: protobuf.Type;
  responseType: protobuf.Type;
  clientStream: boolean;
  serverStream: boolean;
}

/** What k6's load() returns for each method. */
export interface MethodInfo {
  package: string;
  service: string;
  fullMethod: string;
  name: string;
  isClientStream: boolean;
  isServerStream: boolean;
}

let baseDir = process.cwd();

/** Sets the directory relative proto paths resolve against (k6: the script's working directory). */
export function setProtoBaseDir(dir: string): void {
  baseDir = dir;
}

/** Every proto file read in this process (absolute paths): an archive holds them (archive/collect.ts). */
export const protoFilesRead = new Set<string>();

/** Parsed protos by import paths and files: every VU's init loads the same ones, so parse once. */
const parsed = new Map<string, MethodDef[]>();

/** Parses proto files (with imports searched in importPaths) and returns their methods. */
export function loadProtos(importPaths: readonly string[] | null, files: readonly string[]): MethodDef[] {
  const dirs = (importPaths && importPaths.length > 0 ? importPaths : [baseDir]).map((d) =>
    path.resolve(baseDir, d),
  );
  const key = JSON.stringify([dirs, files]);
  let defs = parsed.get(key);
  if (!defs) {
    defs = parseProtos(dirs, files);
    parsed.set(key, defs);
  }
  return defs;
}

function parseProtos(dirs: string[], files: readonly string[]): MethodDef[] {
  const root = new protobuf.Root();
  root.resolvePath = (origin: string, target: string): string => {
    if (path.isAbsolute(target)) return target;
    for (const d of dirs) {
      const candidate = path.join(d, target);
      if (existsSync(candidate)) return candidate;
    }
    // protobufjs ships google/protobuf/*.proto; let it resolve those itself.
    if (origin) {
      const rel = path.join(path.dirname(origin), target);
      if (existsSync(rel)) return rel;
    }
    return path.join(dirs[0]!, target);
  };
  for (const f of files) {
    const resolved = root.resolvePath('', f) ?? f;
    if (!existsSync(resolved)) {
      throw new Error(
        `could not load proto file ${JSON.stringify(f)}: not found in import paths ${dirs.join(', ')}`,
      );
    }
  }
  root.loadSync(files as string[], { keepCase: true, alternateCommentMode: false });
  // protobufjs's own google/protobuf definitions are no files of the test.
  for (const f of root.files) if (existsSync(f)) protoFilesRead.add(path.resolve(f));
  root.resolveAll();
  return methodsOf(root);
}

/** Every RPC method of every service in a resolved root. */
export function methodsOf(root: protobuf.Root): MethodDef[] {
  const out: MethodDef[] = [];
  const visit = (ns: protobuf.NamespaceBase): void => {
    for (const child of ns.nestedArray) {
      if (child instanceof protobuf.Service) {
        for (const m of child.methodsArray) {
          const service = child.fullName.slice(1);
          out.push({
            path: `/${service}/${m.name}`,
            service,
            name: m.name,
            requestType: m.resolvedRequestType!,
            responseType: m.resolvedResponseType!,
            clientStream: Boolean(m.requestStream),
            serverStream: Boolean(m.responseStream),
          });
        }
      } else if (child instanceof protobuf.Namespace) {
        visit(child);
      }
    }
  };
  visit(root);
  return out;
}

/** k6's MethodInfo for a method definition. */
export function methodInfo(m: MethodDef): MethodInfo {
  const dot = m.service.lastIndexOf('.');
  return {
    package: dot >= 0 ? m.service.slice(0, dot) : '',
    service: dot >= 0 ? m.service.slice(dot + 1) : m.service,
    fullMethod: m.path,
    name: m.name,
    isClientStream: m.clientStream,
    isServerStream: m.serverStream,
  };
}
