/** k6's `localIPs` option: the source addresses VUs dial from (addresses, a-b ranges, CIDR blocks), round-robin by VU. */
import { isIP } from 'node:net';

/** One localIPs range: `count` addresses from `start`. */
export interface IpRange {
  start: bigint;
  count: bigint;
  v6: boolean;
}

function ipToBig(ip: string): bigint {
  if (isIP(ip) === 4) return ip.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
  const [head = '', tail = ''] = ip.includes('::') ? ip.split('::') : [ip, ''];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  return groups.reduce((n, g) => (n << 16n) | BigInt(Number.parseInt(g || '0', 16)), 0n);
}

function bigToIp(n: bigint, v6: boolean): string {
  if (!v6) return [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 255n)).join('.');
  return Array.from({ length: 8 }, (_, i) => ((n >> BigInt((7 - i) * 16)) & 0xffffn).toString(16)).join(':');
}

/** Reads k6's localIPs: addresses, `a-b` ranges and CIDR blocks, comma-separated. */
export function parseLocalIps(value: unknown): readonly IpRange[] {
  if (value === undefined || value === null || value === '') return [];
  if (typeof value !== 'string')
    throw new Error('invalid option localIPs: expected a string such as "10.0.0.1,10.0.1.0/24"');
  return value.split(',').map((raw) => {
    const item = raw.trim();
    const bad = () =>
      new Error(`invalid option localIPs: ${JSON.stringify(item)} is not an address, a-b range or CIDR`);
    if (item.includes('/')) {
      const [net = '', bits = ''] = item.split('/');
      const family = isIP(net);
      const width = family === 6 ? 128 : 32;
      const prefix = Number(bits);
      if (family === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > width) throw bad();
      const size = 1n << BigInt(width - prefix);
      return { start: (ipToBig(net) / size) * size, count: size, v6: family === 6 };
    }
    const [from = '', to = from] = item.split('-');
    const family = isIP(from);
    if (family === 0 || isIP(to) !== family) throw bad();
    const start = ipToBig(from);
    const end = ipToBig(to);
    if (end < start) throw bad();
    return { start, count: end - start + 1n, v6: family === 6 };
  });
}

/** The source address of the VU with 0-based index `vu` (round-robin over the ranges' addresses), or null. */
export function localAddressFor(ranges: readonly IpRange[], vu: number): string | null {
  if (ranges.length === 0) return null;
  const total = ranges.reduce((n, r) => n + r.count, 0n);
  let i = BigInt(Math.max(0, vu)) % total;
  for (const r of ranges) {
    if (i < r.count) return bigToIp(r.start + i, r.v6);
    i -= r.count;
  }
  return null;
}
