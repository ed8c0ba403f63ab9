// Response.submitForm() and clickLink() as k6 scripts call them (synchronously): the server answers with the
// method, URL and body it received, which go into check names, and the helpers' errors likewise.
import { check } from 'k6';
import http from 'k6/http';

export const options = { vus: 1, iterations: 1 };

function saw(name, res) {
  check(res, { [`${name}: ${res.status} ${res.body}`]: (r) => r.status === 200 });
}

/** An error's text, with the server's address masked. */
const text = (e) => String(e.message || e).replace(__ENV.BASE, 'BASE');

export default function () {
  const page = http.get(`${__ENV.BASE}/app/forms`);
  saw('post form', page.submitForm({ fields: { user: 'bob', extra: 'e&f' } }));
  saw('get form', page.submitForm({ formSelector: '#search' }));
  saw(
    'own submit',
    page.submitForm({ formSelector: '#search', submitSelector: 'input', params: { tags: { k: 'v' } } }),
  );
  saw('first link', page.clickLink());
  saw('chosen link', page.clickLink({ selector: 'a.next' }));
  // The helpers' own errors, thrown before any request (inline try: a callback would not be awaited).
  const errors = [];
  try {
    page.submitForm({ formSelector: '#nope' });
  } catch (e) {
    errors.push(`no form: ${text(e)}`);
  }
  try {
    page.clickLink({ selector: 'a.none' });
  } catch (e) {
    errors.push(`no link: ${text(e)}`);
  }
  try {
    page.clickLink({ selector: 'span.nohref' });
  } catch (e) {
    errors.push(`no href: ${text(e)}`);
  }
  for (const e of errors) check(null, { [e]: () => true });
}
