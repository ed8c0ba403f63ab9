/**
 * The worker side of a supervised run: runs the test with the engine's output and log lines sent
 * to the supervisor on the one port (so they keep their order with the result), answers pings
 * and passes signals and interruptions to the engine; on a run over several workers, also the
 * messages between the workers (workers/link.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runTest, type RunTestOptions } from './engine.ts';
import { setLogSink } from './log.ts';
import { answerApi } from './api/worker-side.ts';
import type { LiveControl, RunControl } from './run-control.ts';
import type { SupervisorMessage, WorkerMessage } from './supervisor.ts';
import { WorkerLink } from './workers/link.ts';
import type { WorkerRole } from './workers/messages.ts';

const port = parentPort!;
const post = (m: WorkerMessage) => port.postMessage(m);
const stdout = (text: string) => post({ type: 'out', fd: 1, text });
const stderr = (text: string) => post({ type: 'out', fd: 2, text });
setLogSink(stderr);

const { opts, role } = workerData as { opts: RunTestOptions; role?: WorkerRole };
let live: LiveControl | null = null;
const control: RunControl = {
  phase: (phase, deadline_epoch_ms) => post({ type: 'phase', phase, deadline_epoch_ms }),
  onSignal: null,
  onInterrupted: null,
  ...(role ? { workers: new WorkerLink(role, post) } : {}),
  liveReady: (l) => {
    live = l;
    post({ type: 'api-ready' });
  },
};
port.on('message', (m: SupervisorMessage) => {
  if (m.type === 'ping') post({ type: 'pong' });
  else if (m.type === 'signal') control.onSignal?.(m.signal);
  else if (m.type === 'interrupted') control.onInterrupted?.();
  else if (m.type === 'api-snapshot' || m.type === 'api-pause' || m.type === 'api-stop')
    answerApi(live, m, post);
  else control.workers?.handle(m);
});

const result = await runTest({ ...opts, stdout, stderr, control });
post({ type: 'result', result });
