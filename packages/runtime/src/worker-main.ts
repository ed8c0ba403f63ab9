/**
 * The worker side of a supervised run: runs the test with the engine's output and log lines sent
 * to the supervisor on the one port (so they keep their order with the result), answers pings
 * and passes signals and interruptions to the engine.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runTest, type RunTestOptions } from './engine.ts';
import { setLogSink } from './log.ts';
import { answerApi } from './api/worker-side.ts';
import type { LiveControl, RunControl } from './run-control.ts';
import type { SupervisorMessage, WorkerMessage } from './supervisor.ts';

const port = parentPort!;
const post = (m: WorkerMessage) => port.postMessage(m);
const stdout = (text: string) => post({ type: 'out', fd: 1, text });
const stderr = (text: string) => post({ type: 'out', fd: 2, text });
setLogSink(stderr);

let live: LiveControl | null = null;
const control: RunControl = {
  phase: (phase, deadline_epoch_ms) => post({ type: 'phase', phase, deadline_epoch_ms }),
  onSignal: null,
  onInterrupted: null,
  liveReady: (l) => {
    live = l;
    post({ type: 'api-ready' });
  },
};
port.on('message', (m: SupervisorMessage) => {
  if (m.type === 'ping') post({ type: 'pong' });
  else if (m.type === 'signal') control.onSignal?.(m.signal);
  else if (m.type === 'interrupted') control.onInterrupted?.();
  else answerApi(live, m, post);
});

const opts = (workerData as { opts: RunTestOptions }).opts;
const result = await runTest({ ...opts, stdout, stderr, control });
post({ type: 'result', result });
