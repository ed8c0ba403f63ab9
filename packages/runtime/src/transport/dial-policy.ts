/**
 * Where k6/http may dial, from k6's options: `hosts` (DNS overrides: a key is a hostname, a hostname with a
 * port, `test.k6.io:443`, or a wildcard, `*.k6.io`; a value is an address or a hostname, with an optional port;
 * the request keeps its URL, Host header and TLS name), `blockHostnames` (patterns, exact or `*.domain`) and
 * `blacklistIPs` (CIDR ranges), failing a dial with k6's errors (1111 hostname is blocked, 1110 ip is blacklisted).
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { buildConnector } from 'undici';

interface HostRule {
  host: string;
  port: number | null;
  wildcard: boolean;
  to: string;
  toPort: number | null;
}

/** The parsed option: empty when unset. */
export type HostMap = readonly HostRule[];

/** `host`, `host:port`, `[v6]` or `[v6]:port`, or a bare IPv6 address (no port). */
function splitHostPort(text: string, what: string): { host: string; port: number | null } {
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (v6) return { host: v6[1]!, port: v6[2] ? Number(v6[2]) : null };
  if ((text.match(/:/g) ?? []).length > 1) return { host: text, port: null };
  const [host = '', port] = text.split(':');
  if (host === '' || (port !== undefined && !/^\d+$/.test(port)))
    throw new Error(`invalid option hosts: ${what} ${JSON.stringify(text)} is not a host or host:port`);
  return { host, port: port === undefined ? null : Number(port) };
}

/** Reads k6's hosts option (an object of strings). */
export function parseHosts(value: unknown): HostMap {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'object' || Array.isArray(value))
    throw new Error('invalid option hosts: expected an object {"host": "address"}');
  return Object.entries(value as Record<string, unknown>).map(([key, to]) => {
    if (typeof to !== 'string')
      throw new Error(`invalid option hosts: the value of ${JSON.stringify(key)} must be a string`);
    const k = splitHostPort(key, 'key');
    const v = splitHostPort(to, 'value');
    const wildcard = k.host.startsWith('*.');
    return {
      host: (wildcard ? k.host.slice(1) : k.host).toLowerCase(),
      port: k.port,
      wildcard,
      to: v.host,
      toPort: v.port,
    };
  });
}

/** Where a dial to `hostname:port` goes under `hosts` (the most specific rule: host:port, host, wildcard), or null. */
export function mapHost(
  hosts: HostMap,
  hostname: string,
  port: number,
): { host: string; port: number } | null {
  if (hosts.length === 0) return null;
  const name = hostname.toLowerCase();
  const rule =
    hosts.find((r) => !r.wildcard && r.host === name && r.port === port) ??
    hosts.find((r) => !r.wildcard && r.host === name && r.port === null) ??
    hosts.find((r) => r.wildcard && name.endsWith(r.host) && (r.port === null || r.port === port));
  return rule ? { host: rule.to, port: rule.toPort ?? port } : null;
}

/** The dial options of a test. */
export interface DialPolicy {
  hosts: HostMap;
  /** blockHostnames' patterns, lower-cased: `name` or `*.domain`. */
  blocked: readonly string[];
  /** blacklistIPs' ranges, each as given and as a BlockList. */
  blacklist: ReadonlyArray<{ range: string; list: BlockList }>;
  /** The dns option's resolver; null: the system's lookup, as undici does it. */
  dns: DnsResolver | null;
  /** localIPs: the source addresses VUs dial from, round-robin by VU. */
  localIps: readonly IpRange[];
}

/** No overrides, nothing blocked: k6's defaults. */
export const OPEN_DIAL: DialPolicy = { hosts: [], blocked: [], blacklist: [], dns: null, localIps: [] };

function strings(value: unknown, what: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw new Error(`invalid option ${what}: expected an array of strings`);
  return value as string[];
}

/** Reads the hosts, blockHostnames, blacklistIPs and dns options. */
export function parseDialPolicy(
  options: Record<string, unknown>,
  parseDuration_ms: (v: unknown) => number,
): DialPolicy {
  const dns = parseDns(options['dns'], parseDuration_ms);
  const blacklist = strings(options['blacklistIPs'], 'blacklistIPs').map((range) => {
    const [net = '', bits] = range.split('/');
    const family = isIP(net);
    const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits);
    if (family === 0 || !Number.isInteger(prefix))
      throw new Error(`invalid option blacklistIPs: ${JSON.stringify(range)} is not a CIDR range`);
    const list = new BlockList();
    list.addSubnet(net, prefix, family === 6 ? 'ipv6' : 'ipv4');
    return { range, list };
  });
  return {
    hosts: parseHosts(options['hosts']),
    blocked: strings(options['blockHostnames'], 'blockHostnames').map((p) => p.toLowerCase()),
    blacklist,
    dns: dns ? new DnsResolver(dns) : null,
    localIps: parseLocalIps(options['localIPs']),
  };
}

/** The blockHostnames pattern `hostname` matches, or null. */
function blockedBy(policy: DialPolicy, hostname: string): string | null {
  const name = hostname.toLowerCase();
  return policy.blocked.find((p) => (p.startsWith('*.') ? name.endsWith(p.slice(1)) : name === p)) ?? null;
}

/** The blacklistIPs range `ip` is in, or null. */
function blacklistedBy(policy: DialPolicy, ip: string): string | null {
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  return policy.blacklist.find((b) => b.list.check(ip, family))?.range ?? null;
}

/** A dial the policy refuses; http-errors.ts maps its code to k6's. */
export class DialRefusedError extends Error {
  constructor(
    readonly code: 'K6_BLOCKED_HOSTNAME' | 'K6_BLACKLISTED_IP',
    message: string,
  ) {
    super(message);
  }
}

/**
 * A connector that applies the policy: refuses blocked names and blacklisted addresses, dials `hosts`' address
 * (resolved as the dns option says), from `localAddress` (the VU's localIPs address) when given.
 */
export function policyConnector(
  connector: buildConnector.connector,
  policy: DialPolicy,
  localAddress: string | null = null,
): buildConnector.connector {
  if (
    policy.hosts.length === 0 &&
    policy.blocked.length === 0 &&
    policy.blacklist.length === 0 &&
    !policy.dns
  ) {
    if (!localAddress) return connector;
    return (opts, callback) => connector({ ...opts, localAddress }, callback);
  }
  return (opts, callback) => {
    const pattern = blockedBy(policy, opts.hostname);
    if (pattern)
      return callback(
        new DialRefusedError(
          'K6_BLOCKED_HOSTNAME',
          `hostname (${opts.hostname}) is in a blocked pattern (${pattern})`,
        ),
        null,
      );
    const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
    const to = mapHost(policy.hosts, opts.hostname, port) ?? { host: opts.hostname, port };
    // undici names the TLS server from `host` unless servername is given: keep the URL's name.
    const servername = opts.servername ?? (isIP(opts.hostname) ? undefined : opts.hostname);
    const dial = (address: string) =>
      connector(
        {
          ...opts,
          hostname: address,
          port: String(to.port),
          servername,
          localAddress: localAddress ?? opts.localAddress,
        },
        callback,
      );
    if (policy.blacklist.length === 0 && !policy.dns) return dial(to.host);
    const resolved = isIP(to.host)
      ? Promise.resolve(to.host)
      : policy.dns
        ? policy.dns.resolve(to.host)
        : lookup(to.host).then((r) => r.address);
    resolved.then(
      (ip) => {
        const range = blacklistedBy(policy, ip);
        if (range)
          callback(
            new DialRefusedError('K6_BLACKLISTED_IP', `IP (${ip}) is in a blacklisted range (${range})`),
            null,
          );
        else dial(ip);
      },
      (err: Error) => callback(err, null),
    );
  };
}

/**
 * Throws when the policy would change a WebSocket or gRPC dial (`what`): the runtime applies it to k6/http
 * only, so it refuses rather than dial where k6 would not.
 */
export function refuseOtherDial(
  policy: DialPolicy | undefined,
  what: string,
  hostname: string,
  port: number,
): void {
  if (!policy) return;
  const option = mapHost(policy.hosts, hostname, port)
    ? 'hosts'
    : blockedBy(policy, hostname)
      ? 'blockHostnames'
      : policy.blacklist.length > 0
        ? 'blacklistIPs'
        : policy.localIps.length > 0
          ? 'localIPs'
          : null;
  if (!option) return;
  throw new Error(
    `option "${option}" applies to k6/http only on the Node runtime, not to ${what} (${hostname}); drop it, or run with k6`,
  );
}

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

/** One localIPs range: `count` addresses from `start`. */
interface IpRange {
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
