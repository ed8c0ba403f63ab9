// k6/experimental/streams: a ReadableStream pulled through its default reader (with a
// CountQueuingStrategy), and a WritableStream written through its default writer.
import { check } from 'k6';
import { CountQueuingStrategy, ReadableStream, WritableStream } from 'k6/experimental/streams';

export const options = { vus: 2, iterations: 4 };

export default async function () {
  let next = 0;
  const numbers = new ReadableStream(
    {
      pull(controller) {
        if (next < 5) controller.enqueue(next++);
        else controller.close();
      },
    },
    new CountQueuingStrategy({ highWaterMark: 2 }),
  );
  const reader = numbers.getReader();
  const seen = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    seen.push(value);
  }
  const written = [];
  const sink = new WritableStream({
    write(chunk) {
      written.push(chunk.toUpperCase());
    },
  });
  const writer = sink.getWriter();
  await writer.write('a');
  await writer.write('b');
  await writer.close();
  let errored = '';
  const failing = new ReadableStream({
    start(controller) {
      controller.error(new Error('boom'));
    },
  });
  try {
    await failing.getReader().read();
  } catch (e) {
    errored = e.message;
  }
  check(seen, { 'read 0..4 in order': (s) => s.join(',') === '0,1,2,3,4' });
  check(written, { 'wrote through the sink': (w) => w.join('') === 'AB' });
  check(errored, { 'errored stream rejects read()': (e) => e === 'boom' });
}
