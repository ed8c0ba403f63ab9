/**
 * Where k6/http may dial, from k6's options: `hosts` (hosts.ts), `dns` (dns.ts), `localIPs` (local-ips.ts),
 * `blockHostnames` (patterns, exact or `*.domain`) and `blacklistIPs` (CIDR ranges), failing a dial with k6's
 * errors (1111 hostname is blocked, 1110 ip is blacklisted).
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { buildConnector } from 'undici';
import { DnsResolver, parseDns } from './dns.ts';
import { type HostMap, mapHost, parseHosts } from './hosts.ts';
import { type IpRange, parseLocalIps } from './local-ips.ts';

export { localAddressFor } from './local-ips.ts';

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
          : policy.dns
            ? 'dns'
            : null;
  if (!option) return;
  throw new Error(
    `option "${option}" applies to k6/http only on the Node runtime, not to ${what} (${hostname}); drop it, or run with k6`,
  );
}
