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
import { type ApiReply, type ApiRequest, workerLink } from './api/worker-link.ts';
import type { RunTestOptions, RunTestResult } from './engine.ts';
import { logLine } from './log.ts';
import { EXIT } from './run-state.ts';
import type { Phase } from './run-control.ts';

/** Worker → supervisor. */
export type WorkerMessage =
  | { type: 'out'; fd: 1 | 2; text: string }
  | { type: 'phase'; phase: Phase; deadline_epoch_ms: number | null }
  | { type: 'pong' }
  | { type: 'result'; result: RunTestResult }
  /** The run is loaded: the REST API may start (k6 starts it after init). */
  | { type: 'api-ready' }
  | ApiReply;

/** Supervisor → worker. */
export type SupervisorMessage =
  | { type: 'ping' }
  | { type: 'signal'; signal: string }
  | { type: 'interrupted' }
  | ApiRequest;

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

/**
 * Runs `opts` on a worker thread, forwarding SIGINT/SIGTERM and interrupting busy script code; with
 * `api`, serves k6's REST API on this thread.
 */
export function runSupervised(opts: RunTestOptions, api?: ApiSettings): Promise<RunTestResult> {
  const { stdout: _o, stderr: _e, control: _c, ...plain } = opts;
  const worker = new Worker(new URL('./worker.js', import.meta.url), {
    workerData: {
      opts: { ...plain, tty: opts.tty ?? { stdout: !!process.stdout.isTTY, stderr: !!process.stderr.isTTY } },
    },
    resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
  });
  return new Promise<RunTestResult>((resolve) => {
    let done = false;
    let signals = 0;
    let deadlineTimer: NodeJS.Timeout | undefined;
    let checkTimer: NodeJS.Timeout | undefined;
    let pingTimer: NodeJS.Timeout | undefined;
    let interrupting = false;
    let phase: Phase = 'init';
    const send = (m: SupervisorMessage) => worker.postMessage(m);
    const link = workerLink(send);
    let server: ApiServer | null = null;

    const finish = (r: RunTestResult) => {
      if (done) return;
      done = true;
      clearTimeout(deadlineTimer);
      clearInterval(checkTimer);
      clearTimeout(pingTimer);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      closeSession();
      link.close();
      void server?.close();
      void worker.terminate();
      resolve(r);
    };

    // While the phase is overdue, ping; an unanswered ping means busy JavaScript: cut it short.
    const overdue = () => {
      if (checkTimer || done) return;
      const check = () => {
        if (pingTimer || interrupting) return;
        pingTimer = setTimeout(interrupt, PING_TIMEOUT_MS);
        send({ type: 'ping' });
      };
      check();
      checkTimer = setInterval(check, CHECK_INTERVAL_MS);
    };
    const interrupt = () => {
      pingTimer = undefined;
      interrupting = true;
      terminateJs(worker).then(
        () => {
          interrupting = false;
          send({ type: 'interrupted' });
        },
        (err: unknown) => {
          logLine('ERRO', `cannot interrupt the running script: ${(err as Error).message}`);
          finish({ exitCode: EXIT.EXTERNAL_ABORT, summaryData: null });
        },
      );
    };

    const onSignal = (signal: NodeJS.Signals) => {
      if (phase === 'init') {
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
      send({ type: 'signal', signal });
      overdue();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);

    worker.on('message', (m: WorkerMessage) => {
      switch (m.type) {
        case 'out':
          (m.fd === 1 ? process.stdout : process.stderr).write(m.text);
          return;
        case 'pong':
          clearTimeout(pingTimer);
          pingTimer = undefined;
          return;
        case 'phase':
          phase = m.phase;
          clearTimeout(deadlineTimer);
          clearInterval(checkTimer);
          checkTimer = undefined;
          if (m.deadline_epoch_ms !== null)
            deadlineTimer = setTimeout(
              overdue,
              Math.max(0, m.deadline_epoch_ms - Date.now()) + DEADLINE_MARGIN_MS,
            );
          return;
        case 'result':
          return finish(m.result);
        case 'api-ready':
          if (api)
            serveApi(api, link).then((s) => {
              if (done) void s?.close();
              else server = s;
            }, finish);
          return;
        case 'api-snapshot':
        case 'api-pause':
          return link.receive(m);
      }
    });
    worker.on('error', (err) => {
      logLine('ERRO', `the run's worker failed: ${err.stack ?? err.message}`);
      finish({ exitCode: EXIT.SCRIPT_EXCEPTION, summaryData: null });
    });
    worker.on('exit', (code) => finish({ exitCode: code || EXIT.SCRIPT_EXCEPTION, summaryData: null }));
  });
}

/**
 * Starts the REST API server; resolves with it, or with null when the port cannot be bound and k6 would
 * only warn (K6_ADDRESS); rejects with exit 106's result when the flag named the address, as k6 exits.
 */
async function serveApi(api: ApiSettings, link: ReturnType<typeof workerLink>): Promise<ApiServer | null> {
  try {
    return await startApiServer(api.address, link);
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
  session ??= new Session();
  const s = session;
  try {
    s.connect();
  } catch {
    // Connected by an earlier interruption.
  }
  const post = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve, reject) =>
      s.post(method, params, (err, r) => (err ? reject(err) : resolve(r as T))),
    );
  const sessionId = await new Promise<string>((resolve, reject) => {
    const onAttached = (ev: { params: { sessionId: string; workerInfo: { workerId: string } } }) => {
      if (ev.params.workerInfo.workerId !== String(worker.threadId)) return;
      s.off('NodeWorker.attachedToWorker', onAttached);
      resolve(ev.params.sessionId);
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
    await post('NodeWorker.detach', { sessionId }).catch(() => {});
  }
}
