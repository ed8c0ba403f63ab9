// k6/websockets: a socket nobody closes keeps its iteration open until the scenario's graceful stop ends it,
// which closes the socket with 1000, as k6 does.
import { WebSocket } from 'k6/websockets';

export const options = {
  scenarios: { hold: { executor: 'constant-vus', vus: 1, duration: '1s', gracefulStop: '100ms' } },
};

export default function () {
  const socket = new WebSocket(`${__ENV.WS_URL}/hold`);
  socket.onopen = () => socket.send('hello');
}
