/** The worker's answers to the REST API's requests (worker-link.ts sends them). */
import type { LiveControl } from '../run-control.ts';
import type { ApiReply, ApiRequest } from './worker-link.ts';

/** Answers one request from the loaded run; before the script is loaded there is nothing to show or change. */
export function answerApi(live: LiveControl | null, m: ApiRequest, post: (r: ApiReply) => void): void {
  if (m.type === 'api-snapshot') {
    const share = live?.share?.();
    post({ type: 'api-snapshot', id: m.id, snapshot: live?.snapshot() ?? null, ...(share ? { share } : {}) });
  } else if (m.type === 'api-pause')
    post({
      type: 'api-pause',
      id: m.id,
      error: live ? live.setPaused(m.paused) : 'the test is still initializing',
    });
  else {
    live?.stop();
    post({ type: 'api-snapshot', id: m.id, snapshot: live?.snapshot() ?? null });
  }
}
