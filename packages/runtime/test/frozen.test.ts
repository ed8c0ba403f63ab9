import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '@k6-triton/lib/kserve/freeze.ts';
import { cachedCallParams } from '../src/modules/grpc-call.ts';
import { encodedFrozen } from '../src/modules/grpc-json.ts';
import { normalizeParams } from '../src/modules/http-params.ts';

const root = protobuf.parse(`
syntax = "proto3";
message Req { string name = 1; repeated bytes raw = 2; }
`).root;
const Req = root.lookupType('Req');

describe('what a script froze is parsed or encoded once', () => {
  it('encodes a deeply frozen message once and shares the bytes', () => {
    const message = deepFreeze({ name: 'm', raw: [Buffer.from('abc').toString('base64')] });
    const first = encodedFrozen(Req, message);
    expect(first).toBeInstanceOf(Buffer);
    expect(Req.decode(first!).toJSON()).toEqual({ name: 'm', raw: ['YWJj'] });
    expect(encodedFrozen(Req, message)).toBe(first);
  });

  it('encodes per call what is not frozen all the way down', () => {
    expect(encodedFrozen(Req, { name: 'm' })).toBeUndefined();
    expect(encodedFrozen(Req, Object.freeze({ name: 'm', raw: ['YWJj'] }))).toBeUndefined();
  });

  it('parses frozen HTTP params once, others per call', () => {
    const frozen = deepFreeze({
      headers: { 'X-A': '1' },
      tags: { window: '0' },
      responseType: 'none' as const,
    });
    expect(normalizeParams(frozen, false)).toBe(normalizeParams(frozen, false));
    const open = { headers: { 'X-A': '1' } };
    expect(normalizeParams(open, false)).not.toBe(normalizeParams(open, false));
    expect(normalizeParams(frozen, false).tags).toEqual({ window: '0' });
  });

  it('parses frozen gRPC params once, into one object every call shares', () => {
    const frozen = deepFreeze({ metadata: { k: 'v' }, tags: { window: '1' } });
    const a = cachedCallParams(frozen, 'client.invoke()', 1000);
    const b = cachedCallParams(frozen, 'client.invoke()', 1000);
    // The unary channel memoises its request headers per metadata object; grpc-js calls get a clone.
    expect(a).toBe(b);
    expect(a.metadata.get('k')).toEqual(['v']);
    const loose = { metadata: { k: 'v' } };
    expect(cachedCallParams(loose, 'client.invoke()', 1000)).not.toBe(
      cachedCallParams(loose, 'client.invoke()', 1000),
    );
  });
});
