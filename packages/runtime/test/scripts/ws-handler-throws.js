// k6/ws: a handler that throws closes the socket (1001, close handlers run) and fails the iteration with its
// error; the next iteration connects again.
import { check } from 'k6';
import ws from 'k6/ws';

export const options = { iterations: 2 };

export default function () {
  ws.connect(`${__ENV.WS_URL}/boom`, (socket) => {
    socket.on('open', () => socket.send('hello'));
    socket.on('message', () => {
      throw new Error('handler failed on purpose');
    });
    socket.on('close', (code) => check(code, { 'close handler ran with 1001': (c) => c === 1001 }));
  });
  check(null, { 'never reached': () => true });
}
