// k6/secrets with --secret-source url=…: values fetched from a local server (template, header, responsePath),
// k6's rejections for a 404 and a non-string value, and a secret logged redacted.
import { check } from 'k6';
import secrets from 'k6/secrets';

export const options = { vus: 1, iterations: 1 };

const reason = async (p) => {
  try {
    return `resolved ${await p}`;
  } catch (e) {
    return String(e);
  }
};

export default async function () {
  const api = await secrets.get('api');
  console.log(`the secret is ${api}`);
  check(api, { 'value picked by responsePath': (v) => v === 'value of api' });
  const missing = await reason(secrets.get('missing'));
  const num = await reason(secrets.get('num'));
  check(null, { [`404: ${missing}`]: () => true, [`number: ${num}`]: () => true });
}
