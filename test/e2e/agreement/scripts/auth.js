// Basic and digest authentication with credentials in the URL; digest's 401 challenge is a request
// of its own, counted as expected.
import { check } from 'k6';
import http from 'k6/http';

export const options = { vus: 1, iterations: 1 };

export default function () {
  const B = __ENV.BASE;
  const withCreds = (user, pass) => B.replace('http://', `http://${user}:${pass}@`);
  let r = http.get(`${withCreds('u', 'p')}/basic-auth/u/p`);
  check(r, { 'basic auth from the URL': (x) => x.status === 200 });
  r = http.get(`${withCreds('u', 'bad')}/basic-auth/u/p`);
  check(r, { 'basic auth, wrong password': (x) => x.status === 401 });
  r = http.get(`${withCreds('u', 'p')}/digest-auth/u/p`, { auth: 'digest' });
  check(r, { 'digest auth': (x) => x.status === 200 && JSON.parse(x.body).user === 'u' });
  r = http.get(`${withCreds('u', 'bad')}/digest-auth/u/p`, { auth: 'digest' });
  check(r, { 'digest auth, wrong password': (x) => x.status === 401 });
}
