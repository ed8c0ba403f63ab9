// k6/secrets with --secret-source: the default source's get(), a named source, k6's rejections for an
// unknown key and an unknown source, and a secret logged (redacted in k6's log output).
import { check } from 'k6';
import secrets from 'k6/secrets';

export const options = { vus: 1, iterations: 2 };

const reason = async (p) => {
  try {
    await p;
    return 'resolved';
  } catch (e) {
    return String(e);
  }
};

export default async function () {
  const cool = await secrets.get('cool');
  const key = await secrets.get('api_key');
  const token = await secrets.source('extra').get('token');
  console.log(`the secret is ${cool}`);
  check(cool, { 'default source value': (v) => v === 's3cret-value' });
  check(key, { 'value keeps its "="': (v) => v === 'k=with=equals' });
  check(token, { 'named source value': (v) => v === 'abc123' });
  check(await reason(secrets.get('nope')), { 'unknown key: no value': (r) => r === 'no value' });
  check(await reason(secrets.source('other').get('cool')), {
    'unknown source': (r) => r === 'no secret source with name "other" is configured',
  });
}
