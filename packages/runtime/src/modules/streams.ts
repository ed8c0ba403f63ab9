/**
 * `k6/experimental/streams`: the WHATWG Streams classes k6 exports (ReadableStream with its default
 * reader, CountQueuingStrategy, WritableStream with its default writer). Node implements the same
 * standard in node:stream/web, so these are Node's; k6 implements them after the same specification.
 */
import {
  CountQueuingStrategy,
  ReadableStream,
  ReadableStreamDefaultReader,
  WritableStream,
  WritableStreamDefaultWriter,
} from 'node:stream/web';

export {
  CountQueuingStrategy,
  ReadableStream,
  ReadableStreamDefaultReader,
  WritableStream,
  WritableStreamDefaultWriter,
};

export default {
  CountQueuingStrategy,
  ReadableStream,
  ReadableStreamDefaultReader,
  WritableStream,
  WritableStreamDefaultWriter,
};
