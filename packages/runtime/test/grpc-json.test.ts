/** k6's protojson mapping of messages, unit by unit (no server): what scripts pass and get back. */
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { EncodeBuffers, messageIn, messageOut } from '../src/modules/grpc-json.ts';

const PROTO = `
syntax = "proto3";
package t;
import "google/protobuf/timestamp.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/wrappers.proto";
enum Kind { KIND_NONE = 0; KIND_A = 1; }
message Scalars {
  float f = 1;
  double d = 2;
  int32 i32 = 3;
  uint64 u64 = 4;
  sint64 s64 = 5;
  bool b = 6;
  bytes raw = 7;
  Kind kind = 8;
  string renamed_field = 9 [json_name = "customName"];
  map<int32, string> by_id = 10;
  optional int32 maybe = 11;
  google.protobuf.Timestamp at = 12;
  google.protobuf.Duration took = 13;
  google.protobuf.Int64Value wrapped_count = 14;
}
`;

// protobuf.parse does not follow imports: add the well-known types protobufjs ships, then the proto.
const root = new protobuf.Root();
for (const f of ['timestamp', 'duration', 'wrappers']) {
  root.addJSON(protobuf.common.get(`google/protobuf/${f}.proto`)!.nested!);
}
protobuf.parse(PROTO, root, { keepCase: true });
root.resolveAll();
const Scalars = root.lookupType('t.Scalars');

/** Encodes what a script passes and decodes it back as k6 hands it to scripts. */
function roundTrip(value: unknown): Record<string, unknown> {
  const bytes = Scalars.encode(messageIn(Scalars, value)).finish();
  return messageOut(Scalars, Scalars.decode(bytes)) as Record<string, unknown>;
}

describe('k6 JSON mapping of protobuf messages', () => {
  it('writes floats as the shortest decimal of the float32 and NaN/Infinity as strings', () => {
    expect(roundTrip({ f: 0.1, d: 0.1 })).toMatchObject({ f: 0.1, d: 0.1 });
    expect(roundTrip({ f: 'NaN', d: '-Infinity' })).toMatchObject({ f: 'NaN', d: '-Infinity' });
  });

  it('takes 64-bit integers as numbers or strings and gives them back as strings', () => {
    expect(roundTrip({ u64: '18446744073709551615', s64: -5, i32: '7' })).toMatchObject({
      u64: '18446744073709551615',
      s64: '-5',
      i32: 7,
    });
  });

  it('takes bytes as standard or URL-safe base64 and gives standard base64', () => {
    const raw = Buffer.from([251, 255, 254]);
    expect(roundTrip({ raw: raw.toString('base64url') })['raw']).toBe(raw.toString('base64'));
  });

  it('maps enums by name or number, json_name, int map keys and proto3 optional presence', () => {
    const out = roundTrip({ kind: 1, customName: 'x', by_id: { 3: 'c' } });
    expect(out).toMatchObject({ kind: 'KIND_A', customName: 'x', byId: { 3: 'c' } });
    expect(out).not.toHaveProperty('maybe');
    expect(roundTrip({ kind: 'KIND_A', renamed_field: 'y', maybe: 0 })).toMatchObject({
      customName: 'y',
      maybe: 0,
    });
  });

  it('uses the JSON forms of Timestamp, Duration and wrappers', () => {
    const out = roundTrip({ at: '2024-01-02T03:04:05.5Z', took: '1.25s', wrapped_count: '12' });
    expect(out).toMatchObject({ at: '2024-01-02T03:04:05.500Z', took: '1.250s', wrappedCount: '12' });
  });

  it('emits every unset field with its default, as k6 (EmitUnpopulated)', () => {
    expect(roundTrip({})).toEqual({
      f: 0,
      d: 0,
      i32: 0,
      u64: '0',
      s64: '0',
      b: false,
      raw: '',
      kind: 'KIND_NONE',
      customName: '',
      byId: {},
      at: null,
      took: null,
      wrappedCount: null,
    });
  });

  it('rejects unknown fields and wrong types with a message naming the field', () => {
    expect(() => messageIn(Scalars, { nope: 1 })).toThrow(/unknown field "nope"/);
    expect(() => messageIn(Scalars, { i32: 1.5 })).toThrow(/int32 field i32/);
    expect(() => messageIn(Scalars, { kind: 'KIND_B' })).toThrow(/invalid value for enum/);
  });

  it('encodes large messages into reused buffers with the same bytes as protobufjs', () => {
    const buffers = new EncodeBuffers();
    const value = { raw: Buffer.alloc(100_000, 9).toString('base64'), s64: 3 };
    const expected = Buffer.from(Scalars.encode(messageIn(Scalars, value)).finish());
    const first = buffers.encode(Scalars, value);
    expect(first.equals(expected)).toBe(true);
    buffers.release(first);
    const second = buffers.encode(Scalars, { ...value, s64: 4 });
    expect(second.buffer).toBe(first.buffer);
    expect(Scalars.decode(second).toJSON()['s64']).toBe('4');
  });
});
