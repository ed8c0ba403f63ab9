/**
 * k6's `hosts` option: DNS overrides. A key is a hostname, a hostname with a port (`test.k6.io:443`) or a
 * wildcard (`*.k6.io`); a value is an address or a hostname, with an optional port. The request keeps its URL,
 * Host header and TLS name; only the dial goes elsewhere.
 */

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
