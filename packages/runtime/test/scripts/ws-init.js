// k6/ws in the init context: refused as k6 refuses it.
import ws from 'k6/ws';

ws.connect(`${__ENV.WS_URL}/init`, () => undefined);

export default function () {}
