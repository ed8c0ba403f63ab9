/**
 * Feeds one body to a stream decoder in every way a network can cut it: whole, byte by byte, and in two
 * pieces at every byte position (so mid-line, mid-CRLF and mid-UTF-8 character); the tests check all agree.
 */

/** A decoder as the stream modules shape it. */
export interface ChunkDecoder<E> {
  push(chunk: Uint8Array | string): E[];
  end(): { truncated: boolean };
}

/** Events and the end state of one way of feeding the body. */
export interface Fed<E> {
  how: string;
  events: E[];
  truncated: boolean;
}

/** The body fed whole, byte by byte, and split in two at every position, each to a new decoder. */
export function feedEveryWay<E>(body: Uint8Array, decoder: () => ChunkDecoder<E>): Fed<E>[] {
  const feed = (how: string, pieces: Uint8Array[]): Fed<E> => {
    const d = decoder();
    const events = pieces.flatMap((p) => d.push(p));
    return { how, events, truncated: d.end().truncated };
  };
  const ways = [
    feed('whole', [body]),
    feed(
      'byte by byte',
      Array.from(body, (_, i) => body.subarray(i, i + 1)),
    ),
  ];
  for (let cut = 1; cut < body.length; cut++) {
    ways.push(feed(`cut at ${cut}`, [body.subarray(0, cut), body.subarray(cut)]));
  }
  return ways;
}
