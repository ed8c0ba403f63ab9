// k6/websockets over TLS, under k6's deprecated name: with SKIP set, insecureSkipTLSVerify lets the self-signed
// certificate through and the echo comes back; without it the handshake fails (error, then close).
import { check } from 'k6';
import { WebSocket } from 'k6/experimental/websockets';

export const options = { iterations: 1, insecureSkipTLSVerify: Boolean(__ENV.SKIP) };

export default function () {
  const socket = new WebSocket(`${__ENV.WS_URL}/tls`);
  let echoed = '';
  let error = '';
  socket.onopen = () => socket.send('over tls');
  socket.onmessage = (e) => {
    echoed = e.data;
    socket.close();
  };
  socket.onerror = (e) => {
    error = e.error;
  };
  socket.onclose = () => {
    if (__ENV.SKIP) check(echoed, { 'echoed over wss': (x) => x === 'over tls' });
    else
      check(error, {
        'unverified certificate refused': (x) =>
          x === 'tls: failed to verify certificate: x509: certificate signed by unknown authority' &&
          echoed === '',
      });
  };
}
