/**
 * The REST API's RunApi over one worker's messages (supervisor.ts): requests carry an id, the worker's
 * replies settle them. A worker whose script code does not yield cannot answer; then the last snapshot
 * it gave stands, so the API keeps answering, as k6's does while VUs are busy.
 */
import { EXEC_STATUS, type LiveShare, type LiveSnapshot, type RunApi } from './types.ts';

/** Messages the link sends to the worker. */
export type ApiRequest =
  | { type: 'api-snapshot'; id: number }
  | { type: 'api-pause'; id: number; paused: boolean }
  | { type: 'api-stop'; id: number };

/** The worker's replies. */
export type ApiReply =
  | { type: 'api-snapshot'; id: number; snapshot: LiveSnapshot | null; share?: LiveShare }
  | { type: 'api-pause'; id: number; error: string | null };

/** How long a request waits for a busy worker. */
const REPLY_TIMEOUT_MS = 1000;

/** The snapshot before the worker gave one: VUs initializing, nothing measured. */
const INITIAL: LiveSnapshot = {
  status: {
    status: EXEC_STATUS.INIT_VUS,
    paused: false,
    vus: 0,
    'vus-max': 0,
    stopped: false,
    running: false,
    tainted: false,
  },
  metrics: [],
  groups: [],
  setupJson: null,
};

/** A RunApi talking to one worker; `receive` takes the worker's api-* replies. */
export interface WorkerLink extends RunApi {
  /** The snapshot with the worker's raw share (a run on several workers; null share: none yet). */
  detail(): Promise<{ snapshot: LiveSnapshot; share: LiveShare | null }>;
  receive(m: ApiReply): void;
  /** The worker is gone: pending and later requests get the last snapshot at once. */
  close(): void;
}

/** Creates the link; `send` posts to the worker. */
export function workerLink(send: (m: ApiRequest) => void): WorkerLink {
  let next = 0;
  let last = INITIAL;
  let lastShare: LiveShare | null = null;
  let closed = false;
  const pending = new Map<number, (m: ApiReply | null) => void>();
  const request = (make: (id: number) => ApiRequest) =>
    new Promise<ApiReply | null>((resolve) => {
      if (closed) return resolve(null);
      const id = ++next;
      const timer = setTimeout(() => {
        pending.delete(id);
        resolve(null);
      }, REPLY_TIMEOUT_MS);
      pending.set(id, (m) => {
        clearTimeout(timer);
        pending.delete(id);
        resolve(m);
      });
      send(make(id));
    });
  const setPaused = async (paused: boolean) => {
    const r = await request((id) => ({ type: 'api-pause', id, paused }));
    if (r === null) throw new Error('the run did not answer: its script code is busy, or it has ended');
    if (r.type === 'api-pause' && r.error !== null) throw new Error(r.error);
  };
  const snapshot = async (make: (id: number) => ApiRequest) => {
    const r = await request(make);
    if (r?.type === 'api-snapshot' && r.snapshot) {
      last = r.snapshot;
      lastShare = r.share ?? lastShare;
    }
    return last;
  };
  return {
    snapshot: () => snapshot((id) => ({ type: 'api-snapshot', id })),
    detail: async () => ({
      snapshot: await snapshot((id) => ({ type: 'api-snapshot', id })),
      share: lastShare,
    }),
    pause: () => setPaused(true),
    resume: () => setPaused(false),
    // The worker answers a stop with its snapshot right after it: the run may end before another request.
    stop: async () => void (await snapshot((id) => ({ type: 'api-stop', id }))),
    receive: (m) => pending.get(m.id)?.(m),
    close: () => {
      closed = true;
      for (const settle of [...pending.values()]) settle(null);
    },
  };
}
