/**
 * What an archive of a script holds, found as k6 finds it: the script is bundled (its local modules, and
 * its remote modules fetched) and its init context runs once, which yields the exported options and the
 * files it open()s (open(), k6/experimental/fs) or loads as gRPC protos.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { loadProgram } from '../loader/program.ts';
import { remoteModules } from '../loader/remote.ts';
import { SamplePipeline } from '../metrics/pipeline.ts';
import { protoFilesRead } from '../modules/grpc-protos.ts';
import { MetricRegistry } from '../metrics/registry.ts';
import { TestRun } from '../run-state.ts';
import { VU } from '../vu.ts';
import type { ArchiveContents } from './tar-io.ts';
import { anonymizePath } from './anonymize.ts';
import { pathOnTree } from './tar-io.ts';
import { archiveMetadata } from './metadata.ts';

/** A script's parts: its text, exported options, and the files an archive of it holds. */
export interface CollectedTest {
  path: string;
  /** The options the script exports (undefined when none). */
  options: Record<string, unknown> | undefined;
  /** Files by scheme and tree path (tar-io.ts), the main script among them. */
  files: ArchiveContents['files'];
}

/** The local source map a module names (`//# sourceMappingURL=file`), which k6 reads and so archives too. */
function sourceMapOf(module: string): string[] {
  const tail = readFileSync(module, 'utf8').slice(-4096);
  const name = /\/\/[#@] sourceMappingURL=(\S+)\s*$/.exec(tail)?.[1];
  if (!name || name.startsWith('data:')) return [];
  const map = resolve(dirname(module), name);
  return existsSync(map) ? [map] : [];
}

/** Loads the script at `path` (absolute) with `env` as __ENV and runs its init context once. */
export async function collectTest(path: string, env: Record<string, string>): Promise<CollectedTest> {
  const remote = remoteModules();
  const program = await loadProgram(path, 'auto', remote);
  const registry = new MetricRegistry();
  const run = new TestRun(registry, new SamplePipeline(registry), env, program.path);
  const vu = new VU(0, run);
  await program.instantiate(vu);
  const files: ArchiveContents['files'] = { file: new Map(), https: new Map() };
  const modules = [program.path, ...program.files];
  const read = [...modules, ...modules.flatMap(sourceMapOf), ...run.openCache.keys(), ...protoFilesRead];
  // Stored under k6's anonymized paths, which archiveMetadata names too.
  for (const file of new Set(read)) files.file.set(anonymizePath(file), readFileSync(file));
  for (const [url, source] of remote.sources) files.https.set(pathOnTree(url).path, Buffer.from(source));
  const options = vu.exports['options'] as Record<string, unknown> | undefined;
  return { path: program.path, options, files };
}

/** An archive of a collected test, with the options and environment to store. */
export function archiveOf(
  test: CollectedTest,
  options: Record<string, unknown>,
  env: Record<string, string>,
): ArchiveContents {
  return {
    metadata: archiveMetadata(test.path, options, env),
    data: test.files.file.get(anonymizePath(test.path)) ?? Buffer.alloc(0),
    files: test.files,
  };
}
