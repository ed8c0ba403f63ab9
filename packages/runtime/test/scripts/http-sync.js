// A synchronous http.get inside a forEach callback: the loader cannot await it there; in event-loop mode
// (K6_TRITON_VU_MODE=event-loop) it refuses the script at load time, naming the callback's line and
// asyncRequest (by default the VUs run in blocking mode instead).
import { get } from 'k6/http';

export default function () {
  ['http://127.0.0.1:1/'].forEach((u) => {
    get(u);
  });
}
