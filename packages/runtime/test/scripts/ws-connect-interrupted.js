// k6/ws: a socket nobody closes keeps ws.connect() (and its iteration) going until the scenario's graceful stop
// ends it, which closes the socket with 1001 (going away); k6 drops what is recorded after that (the close
// handler's counter, ws_session_duration).
import { Counter } from 'k6/metrics';
import ws from 'k6/ws';

const closed = new Counter('closed_by_stop');

export const options = {
  scenarios: { hold: { executor: 'constant-vus', vus: 1, duration: '1s', gracefulStop: '100ms' } },
};

export default function () {
  ws.connect(`${__ENV.WS_URL}/hold`, (socket) => {
    socket.on('open', () => socket.send('hello'));
    socket.on('close', (code) => closed.add(code === 1001 ? 1 : 0));
  });
}
