// ws.connect() inside a forEach callback: the loader cannot await it there and refuses the script at load.
import ws from 'k6/ws';

export default function () {
  ['a', 'b'].forEach((path) => {
    ws.connect(`${__ENV.WS_URL}/${path}`, () => undefined);
  });
}
