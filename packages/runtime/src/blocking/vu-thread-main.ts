/**
 * A blocking VU's thread (blocking mode, see mode.ts): evaluates the script's init context as its one
 * VU, then runs the exported functions the engine asks for, unmodified. k6/http's synchronous calls go
 * to the engine's thread on a port of their own while this thread waits on Atomics.wait; sleep() waits
 * there too. Samples (checks, groups, custom metrics) and log lines go to the engine as messages.
 */
import { dirname } from 'node:path';
import { type MessagePort, parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { groupAtPath } from '../groups.ts';
import { resolveK6Modules } from '../loader/k6-modules.ts';
import { compileWrapped, Program, type ThreadSource } from '../loader/program.ts';
import { thrownFrames } from '../loader/thrown.ts';
import { type LogFormat, setLogFormat, setLogSink, setLogStartEpoch } from '../log.ts';
import { type Metric, MetricRegistry } from '../metrics/registry.ts';
import { nowEpochMs, SamplePipeline } from '../metrics/pipeline.ts';
import type { ExpectedStatuses } from '../modules/http-params.ts';
import type { TestOptions } from '../options/index.ts';
import { type ScenarioRuntime, TestAbortError, TestRun } from '../run-state.ts';
import { currentRuntimeVu, VU } from '../vu.ts';
import { type ModuleOptions, runInVu, type Sample, type Tags } from '../vu-context.ts';
import {
  type CallReply,
  type CallRequest,
  decodeError,
  decodeResult,
  encodeError,
  encodeValue,
  type FromThread,
  STATUS_ARGS,
  type ToThread,
  type WireSample,
} from './wire.ts';

/** What the engine hands a VU thread (thread-vu.ts). */
export interface ThreadData {
  source: ThreadSource;
  vu: number;
  env: Record<string, string>;
  /** The consolidated options' raw form and test-wide tags (exec.test.options, sample tags). */
  options: { raw: Record<string, unknown>; tags: Tags };
  /** The options k6 modules honour (TLS, discardResponseBodies, ...), for the thread's own async calls. */
  moduleOptions: ModuleOptions;
  /** The call port's thread end and the word this thread waits on (0 waiting, 1 answered). */
  port: MessagePort;
  signal: SharedArrayBuffer;
  /** The engine's log start (its lines' seconds count from there). */
  logStart_epoch_ms: number;
  /** The engine's log format: the thread renders its own lines. */
  logFormat: LogFormat;
  /** Running an archive: its `file` tree, for open() of absolute paths (TestRun.fileRoot). */
  fileRoot?: string;
}

const data = workerData as ThreadData;
const parent = parentPort!;
const post = (m: FromThread) => parent.postMessage(m);
setLogSink((line) => post({ type: 'log', line }));
setLogStartEpoch(data.logStart_epoch_ms);
setLogFormat(data.logFormat.format, data.logFormat.colors);

/** Samples wait here until the next synchronous call, or the end of the call the engine asked for. */
class ForwardingPipeline extends SamplePipeline {
  batch: WireSample[] = [];

  override add(metric: Metric, value: number, tags: Tags, time?: number, metadata?: Record<string, string>) {
    const s: WireSample = { metric: metric.name, value, tags, time: time ?? nowEpochMs() };
    if (metadata) s.metadata = metadata;
    this.batch.push(s);
  }

  override addByName(name: string, value: number, tags: Tags, time?: number): void {
    this.batch.push({ metric: name, value, tags, time: time ?? nowEpochMs() });
  }

  override defer<T>(build: (input: T) => Sample[], input: T): void {
    const now = nowEpochMs();
    for (const s of build(input))
      this.batch.push({ metric: s.metric, value: s.value, tags: s.tags, time: s.time ?? now });
  }

  flushToEngine(): void {
    if (this.batch.length === 0) return;
    post({ type: 'samples', samples: this.batch });
    this.batch = [];
  }
}

const registry = new MetricRegistry();
const pipeline = new ForwardingPipeline(registry);
const run = new TestRun(registry, pipeline, data.env, data.source.path);
run.options = data.options as unknown as TestOptions;
if (data.fileRoot) run.fileRoot = data.fileRoot;
const vu = new VU(data.vu, run);
vu.options = data.moduleOptions;
run.onAbort(() => post({ type: 'abort', reason: run.abortRequest!.reason, counted: vu.abortedTest }));

const signal = new Int32Array(data.signal);

/** Sends a synchronous call to the engine's thread and blocks until its reply. */
function blockingCall(req: CallRequest): unknown {
  pipeline.flushToEngine();
  Atomics.store(signal, 0, 0);
  data.port.postMessage(req);
  Atomics.wait(signal, 0, 0);
  const reply = receiveMessageOnPort(data.port)?.message as CallReply | undefined;
  if (!reply) throw new Error('blocking VU: the engine gave no reply');
  if (!reply.ok) throw decodeError(reply.error);
  return reply.value;
}

const notInInit = () => {
  if (currentRuntimeVu().inInit) throw new Error('Making http requests in the init context is not supported');
};

/** k6/http's synchronous call `fn`, blocking this thread. */
const httpCall =
  (fn: string) =>
  (...args: unknown[]): unknown => {
    notInInit();
    const req: CallRequest = { fn, args: encodeValue(args) as unknown[], tags: currentRuntimeVu().tags() };
    return decodeResult(blockingCall(req));
  };

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** The module members a blocking VU replaces: k6/http's synchronous calls, and sleep(). */
function blockingForms(spec: string, ns: Record<string, unknown>): Record<string, unknown> | null {
  if (spec === 'k6')
    return {
      sleep: (seconds: unknown) => {
        const ms = Math.max(0, Number(seconds) || 0) * 1000;
        if (ms > 0) Atomics.wait(sleeper, 0, 0, ms);
      },
    };
  if (spec !== 'k6/http') return null;
  const forms: Record<string, unknown> = {};
  for (const fn of ns['SYNC_HTTP_FUNCTIONS'] as string[]) forms[fn] = httpCall(fn);
  const expected = ns['expectedStatuses'] as (...a: unknown[]) => ExpectedStatuses;
  const setCallback = ns['setResponseCallback'] as (cb: unknown) => void;
  // Its statuses travel as data (wire.ts): the engine's thread rebuilds the object.
  forms['expectedStatuses'] = (...a: unknown[]) =>
    Object.defineProperty(expected(...a), STATUS_ARGS, { value: a });
  forms['setResponseCallback'] = (cb: unknown) => {
    setCallback(cb);
    // The run-time callback lives where requests are made; the init context's already does (the engine's VU 0).
    if (!currentRuntimeVu().inInit)
      blockingCall({ fn: 'setResponseCallback', args: [encodeValue(cb)], tags: {} });
  };
  forms['cookieJar'] = () => {
    throw new Error(
      "http.cookieJar() is not supported in the Node runtime's blocking VU mode; run the script with k6",
    );
  };
  return forms;
}

async function load(): Promise<void> {
  const src = data.source;
  const imports = new Map(
    src.imports.map(([spec, used]) => [
      spec,
      { names: new Set(used.names), requiredOnly: used.requiredOnly },
    ]),
  );
  const modules = await resolveK6Modules(imports, dirname(src.path), { blocking: true });
  for (const [spec, ns] of modules) {
    const forms = blockingForms(spec, ns);
    if (!forms) continue;
    const def = (ns['default'] ?? {}) as Record<string, unknown>;
    modules.set(spec, { ...ns, ...forms, default: { ...def, ...forms } });
  }
  const program = new Program(src.path, compileWrapped(src.wrapped, src.path), modules, src.asyncInit);
  await program.instantiate(vu);
}

/** Runs the exported function the engine asked for, as the VU the engine's message describes. */
async function runExport(m: ToThread): Promise<void> {
  const sc = m.scenario as ScenarioRuntime | null;
  if ((sc?.config.name ?? null) !== (vu.scenario?.config.name ?? null)) vu.setScenario(sc);
  vu.iterationInScenario = m.iterationInScenario;
  vu.iterationInInstance = m.iterationInInstance;
  vu.iterationInTest = m.iterationInTest;
  vu.setGroup(groupAtPath(run.rootGroup, m.group));
  const i = m.instance;
  run.iterationsCompleted = i.iterationsCompleted;
  run.iterationsInterrupted = i.iterationsInterrupted;
  run.vusActive = i.vusActive;
  run.vusInitialized = i.vusInitialized;
  run.start_ms = i.elapsed_ms ? performance.now() - i.elapsed_ms : 0;
  const fn = vu.exports[m.name] as (a: unknown) => unknown;
  let value: unknown;
  let error: ReturnType<typeof encodeError> | undefined;
  try {
    value = await runInVu(vu, () => fn(m.arg));
  } catch (err) {
    error = encodeError(err, thrownFrames(err));
    if (err instanceof TestAbortError) error.abort = true;
  }
  vu.setGroup(run.rootGroup);
  pipeline.flushToEngine();
  // exec.vu.tags set here also tag the engine's samples of the iteration (iterations, iteration_duration).
  const customTags = Object.keys(vu.customTags).length > 0 ? { ...vu.customTags } : undefined;
  if (error) return post({ type: 'done', error, ...(customTags ? { customTags } : {}) });
  try {
    post({ type: 'done', value, ...(customTags ? { customTags } : {}) });
  } catch {
    // Not structured-cloneable (functions in setup's data): k6 hands it on as JSON anyway.
    const json = value === undefined ? undefined : JSON.parse(JSON.stringify(value));
    post({ type: 'done', value: json, ...(customTags ? { customTags } : {}) });
  }
}

try {
  await load();
  pipeline.flushToEngine();
  const exports = Object.keys(vu.exports).filter((k) => typeof vu.exports[k] === 'function');
  post({ type: 'ready', exports });
} catch (err) {
  pipeline.flushToEngine();
  post({ type: 'init-error', error: encodeError(err, thrownFrames(err)) });
}
parent.on('message', (m: ToThread) => void runExport(m));
