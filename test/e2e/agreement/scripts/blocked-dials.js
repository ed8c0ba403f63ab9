// blockHostnames and blacklistIPs: requests fail with k6's error codes before any dial.
import http from 'k6/http';
import { check } from 'k6';

export const options = { iterations: 1, blockHostnames: ['*.blocked.test'], blacklistIPs: ['127.0.0.0/8'] };

export default function () {
  const byName = http.get('http://x.blocked.test/');
  const byIp = http.get('http://127.0.0.1:1/');
  const byResolvedName = http.get('http://localhost:1/');
  check(byName, {
    'blocked hostname: 1111': (r) => r.error_code === 1111 && r.error === 'hostname is blocked',
  });
  check(byIp, { 'blacklisted ip: 1110': (r) => r.error_code === 1110 && r.error === 'ip is blacklisted' });
  check(byResolvedName, { 'blacklisted after lookup: 1110': (r) => r.error_code === 1110 });
}
