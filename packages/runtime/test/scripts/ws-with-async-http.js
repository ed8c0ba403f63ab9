// A script that picks k6/http's async form itself still gets ws.connect() awaited: the code after it runs
// after the socket closed, and the socket's messages are counted before the iteration ends.
import { check } from 'k6';
import http from 'k6/http';
import ws from 'k6/ws';

export const options = {
  iterations: 2,
  thresholds: { 'ws_msgs_sent{kind:talk}': ['count==4'], 'ws_msgs_received{kind:talk}': ['count==4'] },
};

function talk() {
  let echoed = 0;
  ws.connect(`${__ENV.WS_URL}/talk`, { tags: { kind: 'talk' } }, (socket) => {
    socket.on('open', () => {
      socket.send('one');
      socket.send('two');
    });
    socket.on('message', () => {
      echoed++;
      if (echoed === 2) socket.close();
    });
  });
  return echoed;
}

export default async function () {
  if (__ENV.HTTP_URL) await http.asyncRequest('GET', __ENV.HTTP_URL);
  check(talk(), { 'both echoed before connect returned': (n) => n === 2 });
}
