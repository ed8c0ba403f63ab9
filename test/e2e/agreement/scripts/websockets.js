// k6/websockets against the test's WebSocket echo server (WS_URL): the browser-like WebSocket with onopen and
// addEventListener, a subprotocol, text and ArrayBuffer echoes with both binary types, a ping and its pong, a
// close by the client, one by the server (error then close, with code and reason) and a refused handshake. The
// iteration lasts until its sockets have closed: the checks and counters in their close handlers count each one.
import { check } from 'k6';
import { Counter } from 'k6/metrics';
import { Blob, WebSocket } from 'k6/websockets';

const WS_URL = __ENV.WS_URL;
const closed = new Counter('sockets_closed');

export const options = {
  vus: 2,
  iterations: 6,
  thresholds: {
    checks: ['rate==1'],
    sockets_closed: ['count==18'],
    'ws_msgs_received{kind:echo}': ['count==18'],
    ws_sessions: ['count==18'],
    ws_connecting: ['max<10000'],
    ...(__ENV.FAIL ? { ws_msgs_sent: ['count<1'] } : {}),
  },
};

function echo() {
  const socket = new WebSocket(`${WS_URL}/echo`, 'chat', {
    headers: { 'X-Greet': 'yo' },
    tags: { kind: 'echo' },
  });
  check(socket, {
    'connecting at first': (s) => s.readyState === 0 && s.url === `${WS_URL}/echo` && s.binaryType === 'blob',
  });
  socket.binaryType = 'arraybuffer';
  const got = [];
  let pong = false;
  const done = () => got.length === 3 && pong && socket.close();
  socket.onopen = () => {
    check(socket, { 'open with the subprotocol': (s) => s.readyState === 1 && s.protocol === 'chat' });
    socket.send('hello');
    socket.send(new Uint8Array([1, 2, 3]).buffer);
    socket.ping();
  };
  socket.addEventListener('message', (e) => {
    got.push(typeof e.data === 'string' ? e.data : new Uint8Array(e.data).join());
    done();
  });
  socket.onpong = () => {
    pong = true;
    done();
  };
  socket.onclose = (e) => {
    closed.add(1);
    check(got.sort(), { 'greeting and echoes came back': (g) => g.join('|') === '1,2,3|greet:yo|hello' });
    check(e, { 'client close: 1000': (x) => x.code === 1000 && socket.readyState === 3 });
  };
}

function serverCloses() {
  const socket = new WebSocket(`${WS_URL}/bye`);
  let error = '';
  let blob = null;
  socket.onopen = () => socket.send(new Uint8Array([7, 8]).buffer);
  socket.onmessage = (e) => {
    blob = e.data;
    socket.send('close 4001 later');
  };
  socket.onerror = (e) => {
    error = e.error;
  };
  socket.onclose = (e) => {
    closed.add(1);
    check(blob, { 'binary arrives as a Blob': (b) => String(b) === '[object Blob]' && b.size === 2 });
    check(error, { 'a server close is an error': (x) => x === 'websocket: close 4001: later' });
    check(e, { 'close event has code and reason': (x) => x.code === 4001 && x.reason === 'later' });
  };
}

function refused() {
  const socket = new WebSocket(`${WS_URL}/reject`);
  let error = '';
  socket.onerror = (e) => {
    error = e.error;
  };
  socket.onclose = (e) => {
    closed.add(1);
    check(error, { 'refused handshake is an error': (x) => x === 'websocket: bad handshake' });
    check(e, { 'its close event has no code': (x) => x.code === undefined && x.reason === '' });
  };
}

export default function () {
  echo();
  serverCloses();
  refused();
  const blob = new Blob(['ab', new Uint8Array([1])], { type: 'text/plain' });
  check(blob, {
    'Blob size, type and slice': (b) => b.size === 3 && b.type === 'text/plain' && b.slice(1).size === 2,
  });
}
