/**
 * The engine's side of a blocking VU (blocking mode, mode.ts): a VU of the pool whose exported
 * functions run on a thread of its own (vu-thread-main.ts). The executors drive it as any VU; its
 * k6/http calls arrive on a port and run here, on the engine's thread, with this VU's state (cookie
 * jar, connections, the thread's tags), and their samples are recorded here; the thread's samples
 * (checks, groups, custom metrics) arrive as messages. A hard interrupt terminates the thread; the
 * VU's next call starts a new one (its init context runs again).
 */
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { groupAtPath } from '../groups.ts';
import { logFormat, logStartEpoch, writeLogLine } from '../log.ts';
import type { BlockingPlan } from '../loader/program.ts';
import { EXIT, TestAbortError, type TestRun } from '../run-state.ts';
import { VU } from '../vu.ts';
import { runInVu, type Tags } from '../vu-context.ts';
import type { ThreadData } from './vu-thread-main.ts';
import {
  type CallReply,
  type CallRequest,
  decodeError,
  decodeValue,
  encodeError,
  encodeResult,
  type FromThread,
  type ToThread,
  type WireSample,
} from './wire.ts';

/** A thread's young generation (MiB): a VU makes little garbage per call, and 1 instead of 4 saves about 1.7 MiB per VU. */
const YOUNG_GENERATION_MB = 1;

type Fn = (...args: unknown[]) => unknown;

/** Records a thread's samples; checks and group durations also count in the run's group tree (k6.ts's job in-process). */
export function recordThreadSamples(run: TestRun, samples: WireSample[]): void {
  for (const s of samples) {
    if (s.metric === 'checks') {
      const stats = groupAtPath(run.rootGroup, s.tags['group'] ?? '').check(s.tags['check'] ?? '');
      if (s.value) stats.passes++;
      else stats.fails++;
    } else if (s.metric === 'group_duration') groupAtPath(run.rootGroup, s.tags['group'] ?? '');
    const m = run.registry.get(s.metric);
    if (m) run.pipeline.add(m, s.value, s.tags, s.time, s.metadata);
    else run.pipeline.addByName(s.metric, s.value, s.tags, s.time);
  }
}

/** A VU whose script runs on its own thread and blocks there on synchronous calls. */
export class ThreadVu extends VU {
  #worker: Worker | null = null;
  #port: MessagePort | null = null;
  #signal: Int32Array | null = null;
  #starting: Promise<void> | null = null;
  #call: { resolve: (v: unknown) => void; reject: (e: unknown) => void } | null = null;
  /** The thread's tags while one of its calls runs here (k6/http reads them through tags()). */
  #callTags: Tags | null = null;

  constructor(
    id: number,
    run: TestRun,
    readonly plan: BlockingPlan,
    /** The engine's k6/http module (its promise forms make the thread's calls). */
    readonly http: Record<string, unknown> | undefined,
  ) {
    super(id, run);
  }

  override tags(): Tags {
    return this.#callTags ?? super.tags();
  }

  /** Starts the thread and runs its init context; resolves when it is ready. */
  start(): Promise<void> {
    this.#starting ??= new Promise<void>((resolve, reject) => {
      const { port1, port2 } = new MessageChannel();
      const signal = new SharedArrayBuffer(4);
      const options = this.run.options;
      const data: ThreadData = {
        source: this.plan.source,
        vu: this.idInTest,
        env: this.env,
        options: { raw: options?.raw ?? {}, tags: options?.tags ?? {} },
        moduleOptions: this.options,
        port: port2,
        signal,
        logStart_epoch_ms: logStartEpoch(),
        logFormat: logFormat(),
        ...(this.run.fileRoot ? { fileRoot: this.run.fileRoot } : {}),
      };
      const worker = new Worker(new URL('./vu-thread.js', import.meta.url), {
        workerData: data,
        transferList: [port2],
        resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
      });
      this.#worker = worker;
      this.#port = port1;
      this.#signal = new Int32Array(signal);
      port1.on('message', (req: CallRequest) => void this.#serve(req, port1));
      worker.on('message', (m: FromThread) => {
        if (m.type === 'ready') {
          this.exports = Object.fromEntries(
            m.exports.map((name) => [name, (arg: unknown) => this.#run(name, arg)]),
          );
          this.inInit = false;
          resolve();
        } else if (m.type === 'init-error') reject(decodeError(m.error));
        else if (m.type === 'samples') recordThreadSamples(this.run, m.samples);
        else if (m.type === 'log') writeLogLine(m.line);
        else if (m.type === 'abort') {
          this.abortedTest = m.counted;
          this.run.requestAbort(EXIT.SCRIPT_ABORTED, m.reason);
        } else this.#finish(m);
      });
      worker.on('error', (err) => {
        reject(err);
        this.#fail(err);
      });
      worker.on('exit', () => {
        if (this.#worker === worker) {
          this.#fail(new Error(`VU ${this.idInTest}'s thread ended`));
          this.#drop();
        }
        reject(new Error(`VU ${this.idInTest}'s thread ended`));
      });
    });
    return this.#starting;
  }

  /** Runs exported function `name` on the thread (starting one after an interrupt ended the last). */
  async #run(name: string, arg: unknown): Promise<unknown> {
    await this.start();
    const sc = this.scenario;
    const run = this.run;
    const m: ToThread = {
      type: 'run',
      name,
      arg,
      scenario: sc,
      iterationInScenario: this.iterationInScenario,
      iterationInInstance: this.iterationInInstance,
      iterationInTest: this.iterationInTest,
      group: this.group.path,
      instance: {
        iterationsCompleted: run.iterationsCompleted,
        iterationsInterrupted: run.iterationsInterrupted,
        vusActive: run.vusActive,
        vusInitialized: run.vusInitialized,
        elapsed_ms: run.start_ms ? performance.now() - run.start_ms : 0,
      },
    };
    return new Promise((resolve, reject) => {
      this.#call = { resolve, reject };
      this.#worker!.postMessage(m);
    });
  }

  #finish(m: Extract<FromThread, { type: 'done' }>): void {
    const call = this.#call;
    this.#call = null;
    if (!call) return;
    this.#syncCustomTags(m.customTags ?? {});
    if (!m.error) {
      call.resolve(m.value);
      return;
    }
    const err = decodeError(m.error);
    call.reject(m.error.abort ? Object.assign(new TestAbortError(), { message: m.error.message }) : err);
  }

  /** Takes the thread's exec.vu.tags (they tag the iteration's samples, which the engine makes). */
  #syncCustomTags(tags: Tags): void {
    for (const k of Object.keys(this.customTags)) if (!(k in tags)) this.setCustomTag(k, undefined);
    for (const k of Object.keys(tags)) if (this.customTags[k] !== tags[k]) this.setCustomTag(k, tags[k]);
  }

  #fail(err: unknown): void {
    const call = this.#call;
    this.#call = null;
    call?.reject(err);
  }

  /** Makes one of the thread's synchronous calls here, then wakes the thread with the reply. */
  async #serve(req: CallRequest, port: MessagePort): Promise<void> {
    let reply: CallReply;
    try {
      const forms = (this.http?.['PROMISE_FORMS'] ?? {}) as Record<string, Fn>;
      const fn =
        req.fn === 'setResponseCallback' ? (this.http?.['setResponseCallback'] as Fn) : forms[req.fn];
      if (!fn) throw new Error(`k6/http ${req.fn}() is not available here`);
      const args = decodeValue(req.args) as unknown[];
      this.#callTags = req.tags;
      const value = await runInVu(this, () => fn(...args));
      reply = { ok: true, value: req.fn === 'setResponseCallback' ? null : encodeResult(value) };
    } catch (err) {
      reply = { ok: false, error: encodeError(err) };
    } finally {
      this.#callTags = null;
    }
    if (this.#port !== port) return;
    port.postMessage(reply);
    Atomics.store(this.#signal!, 0, 1);
    Atomics.notify(this.#signal!, 0);
  }

  #drop(): void {
    this.#worker = null;
    this.#port?.close();
    this.#port = null;
    this.#starting = null;
  }

  /** Ends the thread now (a blocked thread cannot be reached otherwise); the next call starts another. */
  #kill(): void {
    const w = this.#worker;
    if (!w) return;
    this.#drop();
    // The interrupted call never settles: the executor has already counted the iteration as interrupted.
    this.#call = null;
    void w.terminate();
  }

  override interruptIteration(): void {
    this.#kill();
    super.interruptIteration();
  }

  override async retire(): Promise<void> {
    this.#kill();
    await super.retire();
  }
}
