// A synchronous http.get inside a forEach callback: the loader cannot await it there and refuses the
// script at load time, naming the callback's line and asyncRequest.
import { get } from 'k6/http';

export default function () {
  ['http://127.0.0.1:1/'].forEach((u) => {
    get(u);
  });
}
