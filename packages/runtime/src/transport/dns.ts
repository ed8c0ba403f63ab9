/** k6's `dns` option: how long a lookup is kept (ttl), which address is dialled (select), which families count (policy). */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** k6's dns option: how long a lookup is kept, which address is dialled, which families count. */
export interface DnsConfig {
  /** Infinity: kept for the test; 0: never kept. */
  ttl_ms: number;
  select: 'first' | 'random' | 'roundRobin';
  policy: 'preferIPv4' | 'preferIPv6' | 'onlyIPv4' | 'onlyIPv6' | 'any';
}

const SELECTS = ['first', 'random', 'roundRobin'] as const;
const POLICIES = ['preferIPv4', 'preferIPv6', 'onlyIPv4', 'onlyIPv6', 'any'] as const;

/** Reads k6's dns option: `ttl=5m,select=random,policy=preferIPv4` or `{ ttl, select, policy }`; k6's defaults fill the rest. */
export function parseDns(value: unknown, parseDuration_ms: (v: unknown) => number): DnsConfig | null {
  if (value === undefined || value === null) return null;
  let o: Record<string, unknown>;
  if (typeof value === 'string') {
    o = {};
    for (const part of value.split(',').filter(Boolean)) {
      const [k = '', v = ''] = part.split('=');
      o[k.trim()] = v.trim();
    }
  } else if (typeof value === 'object' && !Array.isArray(value)) o = value as Record<string, unknown>;
  else throw new Error('invalid option dns: expected "ttl=...,select=...,policy=..." or an object');
  for (const k of Object.keys(o))
    if (!['ttl', 'select', 'policy'].includes(k))
      throw new Error(`invalid option dns: unknown key ${JSON.stringify(k)}`);
  const ttl = o['ttl'] ?? '5m';
  const ttl_ms = ttl === 'inf' ? Number.POSITIVE_INFINITY : parseDuration_ms(ttl);
  const select = (o['select'] ?? 'random') as DnsConfig['select'];
  const policy = (o['policy'] ?? 'preferIPv4') as DnsConfig['policy'];
  if (!SELECTS.includes(select))
    throw new Error(`invalid option dns: select ${JSON.stringify(select)} (first, random or roundRobin)`);
  if (!POLICIES.includes(policy))
    throw new Error(
      `invalid option dns: policy ${JSON.stringify(policy)} (preferIPv4, preferIPv6, onlyIPv4, onlyIPv6 or any)`,
    );
  return { ttl_ms, select, policy };
}

/** A lookup kept under the dns option's ttl, and the round-robin position. */
interface Cached {
  addresses: string[];
  until_ms: number;
  next: number;
}

/** Resolves hostnames as k6's dns option says (one cache per test's policy object). */
export class DnsResolver {
  readonly #cache = new Map<string, Cached>();

  constructor(readonly config: DnsConfig) {}

  /** The address to dial for `hostname`. */
  async resolve(hostname: string): Promise<string> {
    if (isIP(hostname)) return hostname;
    const now = performance.now();
    let entry = this.#cache.get(hostname);
    if (!entry || entry.until_ms <= now) {
      const all = await lookup(hostname, { all: true });
      const v4 = all.filter((a) => a.family === 4).map((a) => a.address);
      const v6 = all.filter((a) => a.family === 6).map((a) => a.address);
      const { policy } = this.config;
      const addresses =
        policy === 'onlyIPv4'
          ? v4
          : policy === 'onlyIPv6'
            ? v6
            : policy === 'preferIPv4'
              ? v4.length > 0
                ? v4
                : v6
              : policy === 'preferIPv6'
                ? v6.length > 0
                  ? v6
                  : v4
                : all.map((a) => a.address);
      if (addresses.length === 0)
        throw Object.assign(new Error(`lookup ${hostname}: no such host`), { code: 'ENOTFOUND' });
      entry = { addresses, until_ms: now + this.config.ttl_ms, next: 0 };
      this.#cache.set(hostname, entry);
    }
    const { select } = this.config;
    if (select === 'first') return entry.addresses[0]!;
    if (select === 'random') return entry.addresses[Math.floor(Math.random() * entry.addresses.length)]!;
    const address = entry.addresses[entry.next % entry.addresses.length]!;
    entry.next++;
    return address;
  }
}
