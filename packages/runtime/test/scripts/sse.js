// xk6-sse's k6/x/sse API: each case's events (id, name, data, comment) and open's response, compared with what
// the test expects (EXPECTED, JSON: case -> {events, status}). Written for both runtimes: awaiting open's
// result takes xk6-sse's response and the Node runtime's promise of it alike.
import { check } from 'k6';
import sse from 'k6/x/sse';

export const options = { vus: 1, iterations: 1 };
const EXPECTED = JSON.parse(__ENV.EXPECTED);

export default async function () {
  for (const [name, want] of Object.entries(EXPECTED)) {
    const events = [];
    const errors = [];
    let opened = 0;
    const params = want.params ?? {};
    const res = await sse.open(want.url ?? `${__ENV.BASE}/${name}`, params, (client) => {
      client.on('open', () => opened++);
      client.on('event', (e) => {
        events.push({ id: e.id, name: e.name, data: e.data, comment: e.comment });
        if (want.closeAfter && events.length === want.closeAfter) client.close();
      });
      client.on('error', (e) => errors.push(e.error()));
    });
    const got = { events, status: res.status, opened, errors: errors.length, failed: res.error !== '' };
    const expected = {
      events: want.events,
      status: want.status,
      opened: want.status ? 1 : 0,
      errors: 0,
      failed: !want.status,
    };
    const same = JSON.stringify(got) === JSON.stringify(expected);
    if (!same) console.log(`${name}: got ${JSON.stringify(got)}`);
    check(got, { [name]: () => same });
  }
}
