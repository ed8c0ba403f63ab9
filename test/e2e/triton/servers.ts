/**
 * The two servers the differential tests compare: the embedded server and real Triton (tritonserver),
 * started on the same model repository, each on free 127.0.0.1 ports. Real Triton comes from
 * TRITONSERVER or ../shared/tools/bin/tritonserver; where neither exists, callers skip with REAL_TRITON.skipReason.
 */
import { startTritonserver, type RealTriton } from '../../../measure/core/tritonserver.ts';
import { startCatalogServer } from '../../../measure/repository/built-in.ts';
import type { RunningServer } from '@k6-triton/server';
import { referenceTool } from '../tools/reference-tools.ts';

/** The real tritonserver binary, or why the tests that need it are skipped. */
export const REAL_TRITON = referenceTool('tritonserver', 'TRITONSERVER');

/** Whether anything answers on a URL (a stopped server refuses the connection). */
export async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await response.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

/** One server under comparison, as a client sees it. */
export interface Target {
  kind: 'embedded' | 'triton';
  /** http://127.0.0.1:<port> */
  url: string;
  /** 127.0.0.1:<port> */
  grpcUrl: string;
  /** http://127.0.0.1:<port>/metrics */
  metricsUrl: string;
  stop(): Promise<void>;
}

/** How both servers are started. */
export interface PairOptions {
  /** @default 'none' */
  modelControl?: 'none' | 'explicit';
  /** Models loaded at start in explicit mode. */
  loadModels?: string[];
  /** Further tritonserver flags (real Triton only), e.g. --exit-on-error=false for a repository with a broken model. */
  tritonArgs?: string[];
}

/** The embedded server on `repository`, in this process. */
export async function startEmbeddedTarget(repository: string, opts: PairOptions = {}): Promise<Target> {
  const server: RunningServer = await startCatalogServer({
    modelRepository: repository,
    httpPort: 0,
    grpcPort: 0,
    metricsPort: 0,
    modelControlMode: opts.modelControl ?? 'none',
    loadModels: opts.loadModels ?? [],
  });
  return {
    kind: 'embedded',
    url: `http://127.0.0.1:${server.httpPort}`,
    grpcUrl: `127.0.0.1:${server.grpcPort}`,
    metricsUrl: `http://127.0.0.1:${server.metricsPort}/metrics`,
    stop: () => server.stop(),
  };
}

/** What `observe` sees on the embedded server started on `repository`, stopped afterwards. */
export async function observeEmbedded<T>(
  repository: string,
  observe: (target: Target) => Promise<T>,
  opts: PairOptions = {},
): Promise<T> {
  const target = await startEmbeddedTarget(repository, opts);
  try {
    return await observe(target);
  } finally {
    await target.stop();
  }
}

/** Real Triton on `repository`; requires REAL_TRITON.path. */
export async function startRealTarget(repository: string, opts: PairOptions = {}): Promise<Target> {
  if (!REAL_TRITON.path) throw new Error(REAL_TRITON.skipReason);
  const real: RealTriton = await startTritonserver({
    binary: REAL_TRITON.path,
    repository,
    modelControl: opts.modelControl ?? 'none',
    loadModels: opts.loadModels ?? [],
    args: opts.tritonArgs ?? [],
  });
  return {
    kind: 'triton',
    url: real.url,
    grpcUrl: real.grpcUrl,
    metricsUrl: real.metricsUrl,
    stop: real.stop,
  };
}

/** Both servers on one repository, started side by side. */
export async function startPair(
  repository: string,
  opts: PairOptions = {},
): Promise<{ embedded: Target; triton: Target; stop(): Promise<void> }> {
  const [embedded, triton] = await Promise.all([
    startEmbeddedTarget(repository, opts),
    startRealTarget(repository, opts),
  ]);
  return { embedded, triton, stop: async () => void (await Promise.all([embedded.stop(), triton.stop()])) };
}
