// k6/ws against the test's WebSocket echo server (WS_URL): ws.connect blocks until its socket closes; text and
// binary echoes, a ping and its pong, a server ping, socket timers, a close by the server with its code and error
// text, a refused handshake, checks and thresholds on ws_* metrics. FAIL=1 adds a threshold that fails (exit 99).
import { check, group } from 'k6';
import { Counter } from 'k6/metrics';
import ws from 'k6/ws';

const WS_URL = __ENV.WS_URL;
const ticks = new Counter('interval_ticks');

export const options = {
  vus: 2,
  iterations: 6,
  thresholds: {
    checks: ['rate==1'],
    'ws_msgs_received{kind:echo}': ['count==18'],
    ws_sessions: ['count==24'],
    ws_connecting: ['max<10000'],
    ws_ping: ['max<10000'],
    ...(__ENV.FAIL ? { ws_msgs_sent: ['count<1'] } : {}),
  },
};

function echo() {
  const got = { greet: false, text: false, binary: false, pong: false };
  let closedWith = 0;
  const res = ws.connect(
    `${WS_URL}/echo`,
    { headers: { 'X-Greet': 'hi' }, tags: { kind: 'echo' } },
    (socket) => {
      const done = () => got.text && got.binary && got.pong && socket.close();
      socket.on('open', () => {
        socket.send('hello');
        socket.sendBinary(new Uint8Array([1, 2, 3]).buffer);
        socket.ping();
      });
      socket.on('message', (m) => {
        if (m === 'greet:hi') got.greet = true;
        if (m === 'hello') got.text = true;
        done();
      });
      socket.on('binaryMessage', (m) => {
        got.binary = m instanceof ArrayBuffer && new Uint8Array(m).join() === '1,2,3';
        done();
      });
      socket.on('pong', () => {
        got.pong = true;
        done();
      });
      socket.on('close', (code) => {
        closedWith = code;
      });
    },
  );
  check(res, {
    'handshake is 101': (r) => r.status === 101,
    'response names the url': (r) => r.url === `${WS_URL}/echo` && r.error === '',
  });
  check(got, { 'every echo came back': (g) => g.greet && g.text && g.binary && g.pong });
  check(closedWith, { 'code after connect runs after close (1001)': (c) => c === 1001 });
}

function serverCloses() {
  let error = '';
  let code = 0;
  ws.connect(`${WS_URL}/bye`, (socket) => {
    socket.on('open', () => socket.send('close 4000 bye'));
    socket.on('error', (e) => {
      error = e.error();
    });
    socket.on('close', (c) => {
      code = c;
    });
  });
  check(error, { 'a server close is an error': (e) => e === 'websocket: close 4000: bye' });
  check(code, { 'close handler gets the server code': (c) => c === 4000 });
}

function timers() {
  let n = 0;
  let timeouts = 0;
  let pinged = false;
  ws.connect(`${WS_URL}/timers`, (socket) => {
    socket.on('open', () => socket.send('ping'));
    socket.on('ping', () => {
      pinged = true;
    });
    socket.setTimeout(() => {
      timeouts++;
    }, 5);
    socket.setInterval(() => {
      n++;
      ticks.add(1);
      if (n === 3) socket.close(1000);
    }, 20);
  });
  check(n, { 'interval ran three times': (x) => x === 3 });
  check(timeouts, { 'timeout ran once': (x) => x === 1 });
  check(pinged, { 'server ping is an event': (p) => p });
}

function refused() {
  const res = ws.connect(`${WS_URL}/reject`, () => {
    throw new Error('never called');
  });
  check(res, {
    'refused handshake: status and body': (r) => r.status === 403 && r.body === 'refused' && r.error === '',
  });
}

export default function () {
  group('echo', () => {
    echo();
  });
  serverCloses();
  timers();
  refused();
}
