/**
 * The remote-write wire format (Prometheus remote write 1.0): a protobuf `prometheus.WriteRequest`,
 * compressed with snappy's block format.
 */
import protobuf from 'protobufjs';
import snappy from 'snappyjs';
import type { PromSeries } from './series.ts';

/** The messages of prometheus/prompb's remote.proto and types.proto that remote write 1.0 sends. */
const root = protobuf.Root.fromJSON({
  nested: {
    prometheus: {
      nested: {
        WriteRequest: { fields: { timeseries: { rule: 'repeated', type: 'TimeSeries', id: 1 } } },
        TimeSeries: {
          fields: {
            labels: { rule: 'repeated', type: 'Label', id: 1 },
            samples: { rule: 'repeated', type: 'Sample', id: 2 },
          },
        },
        Label: { fields: { name: { type: 'string', id: 1 }, value: { type: 'string', id: 2 } } },
        Sample: { fields: { value: { type: 'double', id: 1 }, timestamp: { type: 'int64', id: 2 } } },
      },
    },
  },
});

/** The WriteRequest message type (the tests' receiver decodes with it). */
export const WriteRequest = root.lookupType('prometheus.WriteRequest');

// Field keys: (field number << 3) | wire type (1: 64-bit, 2: length-delimited, 0: varint).
const KEY_SERIES = (1 << 3) | 2;
const KEY_LABEL = (1 << 3) | 2;
const KEY_SAMPLE = (2 << 3) | 2;
const KEY_NAME = (1 << 3) | 2;
const KEY_VALUE = (2 << 3) | 2;
const KEY_DOUBLE = (1 << 3) | 1;
const KEY_TIMESTAMP = (2 << 3) | 0;

/**
 * The series as WriteRequest bytes. Written field by field (not through the reflected type) so that a stale
 * sample carries the staleness NaN's exact bits, 0x7ff0000000000002: JavaScript does not promise to keep a
 * NaN's payload, and Prometheus recognises only those bits.
 */
export function writeRequestBytes(series: readonly PromSeries[]): Uint8Array {
  const w = protobuf.Writer.create();
  for (const s of series) {
    w.uint32(KEY_SERIES).fork();
    for (const l of s.labels) {
      w.uint32(KEY_LABEL).fork().uint32(KEY_NAME).string(l.name).uint32(KEY_VALUE).string(l.value).ldelim();
    }
    for (const sample of s.samples) {
      w.uint32(KEY_SAMPLE).fork().uint32(KEY_DOUBLE);
      if (sample.stale) w.fixed32(0x00000002).fixed32(0x7ff00000);
      else w.double(sample.value);
      w.uint32(KEY_TIMESTAMP).int64(sample.timestamp).ldelim();
    }
    w.ldelim();
  }
  return w.finish();
}

/** The body of a remote-write POST: the series as a WriteRequest, snappy-compressed. */
export function encodeWriteRequest(series: readonly PromSeries[]): Uint8Array {
  return snappy.compress(writeRequestBytes(series));
}

/** Decodes a remote-write body back into series (the tests' receiver). */
export function decodeWriteRequest(body: Uint8Array): PromSeries[] {
  const msg = WriteRequest.toObject(WriteRequest.decode(snappy.uncompress(body)), {
    longs: Number,
    defaults: true,
  });
  return (msg['timeseries'] ?? []) as PromSeries[];
}
