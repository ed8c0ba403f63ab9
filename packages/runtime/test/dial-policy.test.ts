/** k6's dial options as pure functions: hosts matching, dns parsing, localIPs ranges. */
import { describe, expect, it } from 'vitest';
import { parseDuration_ms } from '@k6-triton/lib/duration.ts';
import { parseDns } from '../src/transport/dns.ts';
import { mapHost, parseHosts } from '../src/transport/hosts.ts';
import { localAddressFor, parseLocalIps } from '../src/transport/local-ips.ts';

const duration = (v: unknown) => parseDuration_ms(v, 'dns ttl');

describe('hosts', () => {
  it('prefers host:port over host over a wildcard, and keeps the port unless the value sets one', () => {
    const hosts = parseHosts({
      'a.test:8443': '10.0.0.3:9443',
      'a.test': '10.0.0.1',
      '*.wild.test': '[::1]:81',
    });
    expect(mapHost(hosts, 'A.test', 8443)).toEqual({ host: '10.0.0.3', port: 9443 });
    expect(mapHost(hosts, 'a.test', 80)).toEqual({ host: '10.0.0.1', port: 80 });
    expect(mapHost(hosts, 'x.wild.test', 443)).toEqual({ host: '::1', port: 81 });
    expect(mapHost(hosts, 'b.test', 80)).toBeNull();
    expect(() => parseHosts({ 'a.test': 1 })).toThrow('invalid option hosts');
  });
});

describe('dns', () => {
  it("reads k6's string and object forms with k6's defaults", () => {
    expect(parseDns('ttl=inf,select=first,policy=onlyIPv6', duration)).toEqual({
      ttl_ms: Number.POSITIVE_INFINITY,
      select: 'first',
      policy: 'onlyIPv6',
    });
    expect(parseDns({ ttl: '1m' }, duration)).toEqual({
      ttl_ms: 60_000,
      select: 'random',
      policy: 'preferIPv4',
    });
    expect(parseDns(undefined, duration)).toBeNull();
    expect(() => parseDns('select=sometimes', duration)).toThrow('invalid option dns: select');
    expect(() => parseDns('cache=1m', duration)).toThrow('unknown key');
  });
});

describe('localIPs', () => {
  it('hands out addresses, a-b ranges and CIDR blocks round-robin by VU', () => {
    const ranges = parseLocalIps('192.168.0.1,10.0.0.254-10.0.1.1,fd:1::/127');
    const got = Array.from({ length: 8 }, (_, vu) => localAddressFor(ranges, vu));
    expect(got).toEqual([
      '192.168.0.1',
      '10.0.0.254',
      '10.0.0.255',
      '10.0.1.0',
      '10.0.1.1',
      'fd:1:0:0:0:0:0:0',
      'fd:1:0:0:0:0:0:1',
      '192.168.0.1',
    ]);
    expect(localAddressFor(parseLocalIps(''), 3)).toBeNull();
    expect(() => parseLocalIps('10.0.0.9-10.0.0.1')).toThrow('invalid option localIPs');
  });
});
