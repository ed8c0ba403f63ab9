/**
 * A run on a worker thread, supervised by the main thread. VUs share the worker's event loop, so
 * a script that never yields (`while (true) {}`) would block every timer that stops it; the
 * main thread keeps a clock and the signals instead: when the running phase is past its deadline
 * (k6's hard stop, setupTimeout, teardownTimeout) or a signal arrived, and the worker does not
 * answer a ping, the supervisor terminates the worker's running JavaScript through the inspector
 * (`Runtime.terminateExecution`, which V8 cancels once the call stack unwinds) and the run goes on
 * from the next phase, so teardown, outputs and the summary are still written. The iteration path
 * is the in-process one: nothing is added per iteration.
 */
import { Session } from 'node:inspector';
import { Worker } from 'node:worker_threads';
import { type ApiServer, startApiServer } from './api/server.ts';
import type { RunApi } from './api/types.ts';
import { type ApiReply, type ApiRequest, type WorkerLink as ApiLink, workerLink } from './api/worker-link.ts';
import type { RunTestOptions, RunTestResult } from './engine.ts';
import { logLine } from './log.ts';
import { EXIT } from './run-state.ts';
import type { Phase } from './run-control.ts';
import { Coordinator } from './workers/coordinator.ts';
import { severalWorkersApi } from './workers/live.ts';
import type { PeerCommand, PeerMessage } from './workers/messages.ts';
import { requestedWorkers, WORKERS_ENV } from './workers/plan.ts';

/** Worker → supervisor. */
export type WorkerMessage =
  | { type: 'out'; fd: 1 | 2; text: string }
  | { type: 'phase'; phase: Phase; deadline_epoch_ms: number | null }
  | { type: 'pong' }
  | { type: 'result'; result: RunTestResult }
  /** The run is loaded: the REST API may start (k6 starts it after init). */
  | { type: 'api-ready' }
  | ApiReply
  | PeerMessage;

/** Supervisor → worker. */
export type SupervisorMessage =
  | { type: 'ping' }
  | { type: 'signal'; signal: string }
  | { type: 'interrupted' }
  | ApiRequest
  | PeerCommand;

/** k6's REST API for a run (`--address`, K6_ADDRESS). */
export interface ApiSettings {
  address: string;
  /** Given as the flag: a port that cannot be bound ends the run (exit 106); else k6 only warns. */
  explicit: boolean;
}

/** Past a deadline, how long before the first liveness check (the engine's own timers go first). */
const DEADLINE_MARGIN_MS = 100;
/** A worker that does not answer a ping within this is running JavaScript that does not yield. */
const PING_TIMEOUT_MS = 400;
/**
 * The run thread's young generation. V8's default (up to 48 MiB) holds the garbage of thousands of
 * requests per scavenge; 6 MiB cut the peak RSS of `bench mnist` at 8 VUs from 100 to 88 MiB (real
 * k6: 67) at the same client CPU per request (70 µs at c4, three alternating runs of each).
 */
const YOUNG_GENERATION_MB = 6;
/** Liveness checks while a phase is overdue. */
const CHECK_INTERVAL_MS = 500;

/** One worker thread and its liveness watch: pings while its phase is overdue, interrupts busy JavaScript. */
class Watched {
  phase: Phase = 'init';
  #deadlineTimer: NodeJS.Timeout | undefined;
  #checkTimer: NodeJS.Timeout | undefined;
  #pingTimer: NodeJS.Timeout | undefined;
  #interrupting = false;

  constructor(
    readonly index: number,
    readonly worker: Worker,
    readonly onFailure: (r: RunTestResult) => void,
  ) {}

  send(m: SupervisorMessage): void {
    this.worker.postMessage(m);
  }

  /** While the phase is overdue, ping; an unanswered ping means busy JavaScript: cut it short. */
  overdue(): void {
    if (this.#checkTimer) return;
    const check = () => {
      if (this.#pingTimer || this.#interrupting) return;
      this.#pingTimer = setTimeout(() => this.#interrupt(), PING_TIMEOUT_MS);
      this.send({ type: 'ping' });
    };
    check();
    this.#checkTimer = setInterval(check, CHECK_INTERVAL_MS);
  }

  #interrupt(): void {
    this.#pingTimer = undefined;
    this.#interrupting = true;
    // One inspector session: interruptions of several workers take turns.
    const turn = interruptions.then(() => terminateJs(this.worker));
    interruptions = turn.catch(() => {});
    turn.then(
      () => {
        this.#interrupting = false;
        this.send({ type: 'interrupted' });
      },
      (err: unknown) => {
        logLine('ERRO', `cannot interrupt the running script: ${(err as Error).message}`);
        this.onFailure({ exitCode: EXIT.EXTERNAL_ABORT, summaryData: null });
      },
    );
  }

  pong(): void {
    clearTimeout(this.#pingTimer);
    this.#pingTimer = undefined;
  }

  enter(phase: Phase, deadline_epoch_ms: number | null): void {
    this.phase = phase;
    clearTimeout(this.#deadlineTimer);
    clearInterval(this.#checkTimer);
    this.#checkTimer = undefined;
    if (deadline_epoch_ms !== null)
      this.#deadlineTimer = setTimeout(
        () => this.overdue(),
        Math.max(0, deadline_epoch_ms - Date.now()) + DEADLINE_MARGIN_MS,
      );
  }

  stop(): void {
    clearTimeout(this.#deadlineTimer);
    clearInterval(this.#checkTimer);
    clearTimeout(this.#pingTimer);
    void this.worker.terminate();
  }
}

/**
 * Runs `opts` on worker threads, forwarding SIGINT/SIGTERM and interrupting busy script code. With
 * more than one worker (workers/plan.ts) the test is split by execution segment; the first worker
 * runs setup, teardown and the summary on every worker's merged metrics (workers/coordinator.ts).
 * With `api`, serves k6's REST API on this thread once every worker is loaded.
 */
export function runSupervised(opts: RunTestOptions, api?: ApiSettings): Promise<RunTestResult> {
  const { stdout: _o, stderr: _e, control: _c, workers: _w, ...plain } = opts;
  let requested: number;
  let asked = false;
  try {
    requested = requestedWorkers(opts.workers, process.env);
    asked = opts.workers !== undefined || !!process.env[WORKERS_ENV];
  } catch (err) {
    logLine('ERRO', (err as Error).message);
    return Promise.resolve({ exitCode: EXIT.INVALID_CONFIG, summaryData: null });
  }
  const workerOpts = {
    ...plain,
    tty: opts.tty ?? { stdout: !!process.stdout.isTTY, stderr: !!process.stderr.isTTY },
  };
  return new Promise<RunTestResult>((resolve) => {
    let done = false;
    let signals = 0;
    const watched = new Map<number, Watched>();
    const coordinator =
      requested > 1
        ? new Coordinator(requested, {
            start: (index, count) => start(index, count),
            send: (index, m) => watched.get(index)?.send(m),
            indexes: () => [...watched.keys()],
          })
        : null;

    /** Sends `m` to every worker (signals; the REST API's pause, resume and stop go through each one's link). */
    const broadcast = (m: SupervisorMessage) => {
      for (const w of watched.values()) w.send(m);
    };
    /** Each worker's REST API link (requests with ids, replies settle them). */
    const apiLinks = new Map<number, ApiLink>();
    const apiReady = new Set<number>();
    let server: ApiServer | null = null;
    const runApi: RunApi = coordinator
      ? severalWorkersApi(
          () => [...apiLinks.keys()].sort((a, b) => a - b).map((i) => apiLinks.get(i)!),
          (i) => coordinator.final(i),
        )
      : {
          snapshot: () => apiLinks.get(0)!.snapshot(),
          pause: () => apiLinks.get(0)!.pause(),
          resume: () => apiLinks.get(0)!.resume(),
          stop: () => apiLinks.get(0)!.stop(),
        };
    /** k6 serves its API once the run is loaded: here, once every worker is (a resume then reaches each). */
    const onApiReady = (index: number) => {
      apiReady.add(index);
      if (!api || apiReady.size !== (coordinator?.count ?? 1)) return;
      serveApi(api, runApi).then((s) => {
        if (done) void s?.close();
        else server = s;
      }, finish);
    };

    const finish = (r: RunTestResult) => {
      if (done) return;
      done = true;
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      closeSession();
      for (const l of apiLinks.values()) l.close();
      void server?.close();
      for (const w of watched.values()) w.stop();
      resolve(r);
    };

    const onSignal = (signal: NodeJS.Signals) => {
      if (watched.get(0)!.phase === 'init') {
        // k6 handles signals only once the script is initialized: before that, one ends it.
        finish({ exitCode: EXIT.EXTERNAL_ABORT, summaryData: null });
        process.kill(process.pid, signal);
        return;
      }
      signals++;
      if (signals > 1) {
        // k6 stops at once on a second signal.
        logLine('ERRO', 'Aborting test run immediately, the end-of-test summary will not be shown');
        return finish({ exitCode: EXIT.EXTERNAL_ABORT, summaryData: null });
      }
      broadcast({ type: 'signal', signal });
      for (const w of watched.values()) w.overdue();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);

    function start(index: number, count: number): void {
      if (index > 0) severalWorkers = true;
      const worker = new Worker(new URL('./worker.js', import.meta.url), {
        workerData: { opts: workerOpts, ...(count > 1 ? { role: { index, count, asked } } : {}) },
        resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
      });
      const w = new Watched(index, worker, finish);
      watched.set(index, w);
      apiLinks.set(
        index,
        workerLink((m) => w.send(m)),
      );
      // The run's result is the first worker's; another worker ending without its final metrics failed
      // (its init threw, say), and ends the run with its outcome.
      const ended = (r: RunTestResult) => {
        if (index === 0 || !coordinator?.finished(index)) finish(r);
      };
      worker.on('message', (m: WorkerMessage) => {
        switch (m.type) {
          case 'out':
            (m.fd === 1 ? process.stdout : process.stderr).write(m.text);
            return;
          case 'pong':
            return w.pong();
          case 'phase':
            return w.enter(m.phase, m.deadline_epoch_ms);
          case 'result':
            return ended(m.result);
          case 'api-ready':
            return onApiReady(index);
          case 'api-snapshot':
          case 'api-pause':
            return apiLinks.get(index)!.receive(m);
          default:
            coordinator?.route(index, m);
        }
      });
      worker.on('error', (err) => {
        logLine('ERRO', `the run's worker failed: ${err.stack ?? err.message}`);
        finish({ exitCode: EXIT.SCRIPT_EXCEPTION, summaryData: null });
      });
      worker.on('exit', (code) => {
        // Its last answer stands (a finished worker's metrics come from its final ones, coordinator.ts).
        apiLinks.get(index)?.close();
        ended({ exitCode: code || EXIT.SCRIPT_EXCEPTION, summaryData: null });
      });
    }
    start(0, requested);
  });
}

/**
 * Starts the REST API server; resolves with it, or with null when the port cannot be bound and k6 would
 * only warn (K6_ADDRESS); rejects with exit 106's result when the flag named the address, as k6 exits.
 */
async function serveApi(api: ApiSettings, run: RunApi): Promise<ApiServer | null> {
  try {
    return await startApiServer(api.address, run);
  } catch (err) {
    const error = (err as Error).message;
    if (!api.explicit) {
      logLine('WARN', 'Error from API server', { error });
      return null;
    }
    logLine('ERRO', 'Error from API server', { error });
    throw { exitCode: EXIT.CANNOT_START_REST_API, summaryData: null } satisfies RunTestResult;
  }
}

let session: Session | null = null;
/** Set when a run has more than one worker (terminateJs then uses a session per interruption). */
let severalWorkers = false;
let interruptions: Promise<void> = Promise.resolve();

function closeSession(): void {
  session?.disconnect();
  session = null;
}

/** The expression run in the paused worker before termination (see terminateJs). */
const CLEAR_ASYNC_STACK = `(() => {
  const quiet = process.noDeprecation;
  process.noDeprecation = true;
  try { process.binding('async_wrap').clearAsyncIdStack(); } finally { process.noDeprecation = quiet; }
})()`;

/**
 * Terminates the JavaScript the worker runs now, through the worker's inspector: pause it, clear
 * Node's async-id stack (the terminated frames never pop what they pushed, and Node asserts that
 * the stack is empty once a callback's microtasks are done), terminate, resume. V8 cancels the
 * termination when the stack has unwound, and the worker's event loop goes on.
 */
async function terminateJs(worker: Worker): Promise<void> {
  // A run of several workers: a session of its own per interruption (one session's attachments of
  // the other workers would outlive it); one worker keeps its session, as before.
  const own = severalWorkers ? new Session() : null;
  if (!own) session ??= new Session();
  const s = own ?? session!;
  try {
    s.connect();
  } catch {
    // Connected by an earlier interruption.
  }
  const post = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve, reject) =>
      s.post(method, params, (err, r) => (err ? reject(err) : resolve(r as T))),
    );
  // Enabling attaches every worker of the run: each session is detached again at the end, so the next
  // interruption (of another worker) sees its worker attach anew.
  const attached: string[] = [];
  let onAttached: (ev: { params: { sessionId: string; workerInfo: { workerId: string } } }) => void =
    () => {};
  const sessionId = await new Promise<string>((resolve, reject) => {
    onAttached = (ev) => {
      attached.push(ev.params.sessionId);
      if (ev.params.workerInfo.workerId === String(worker.threadId)) resolve(ev.params.sessionId);
    };
    s.on('NodeWorker.attachedToWorker', onAttached);
    // Attaching is what makes the worker take messages while its JavaScript is busy.
    post('NodeWorker.disable')
      .then(() => post('NodeWorker.enable', { waitForDebuggerOnStart: false }))
      .catch(reject);
  });
  const replies = new Map<number, (r: { error?: { message: string } }) => void>();
  let onPaused: (() => void) | null = null;
  const onMessage = (ev: { params: { sessionId: string; message: string } }) => {
    if (ev.params.sessionId !== sessionId) return;
    const m = JSON.parse(ev.params.message) as { id?: number; method?: string; error?: { message: string } };
    if (m.id !== undefined) replies.get(m.id)?.(m);
    else if (m.method === 'Debugger.paused') onPaused?.();
  };
  s.on('NodeWorker.receivedMessageFromWorker', onMessage);
  let id = 0;
  const cdp = (method: string, params: object = {}) =>
    new Promise<void>((resolve, reject) => {
      const n = ++id;
      replies.set(n, (r) => (r.error ? reject(new Error(`${method}: ${r.error.message}`)) : resolve()));
      post('NodeWorker.sendMessageToWorker', {
        sessionId,
        message: JSON.stringify({ id: n, method, params }),
      }).catch(reject);
    });
  try {
    const paused = new Promise<void>((resolve) => {
      onPaused = resolve;
    });
    await cdp('Debugger.enable');
    await cdp('Debugger.pause');
    await paused;
    await cdp('Runtime.evaluate', { expression: CLEAR_ASYNC_STACK });
    // V8 answers terminateExecution once the stack has unwound, i.e. after the resume.
    const terminated = cdp('Runtime.terminateExecution');
    await cdp('Debugger.resume');
    await terminated;
    await cdp('Debugger.disable');
  } finally {
    s.off('NodeWorker.receivedMessageFromWorker', onMessage);
    s.off('NodeWorker.attachedToWorker', onAttached);
    for (const id of new Set([...attached, sessionId]))
      await post('NodeWorker.detach', { sessionId: id }).catch(() => {});
    own?.disconnect();
  }
}
