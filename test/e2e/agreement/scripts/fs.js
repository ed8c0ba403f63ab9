// k6/experimental/fs with top-level await: open() in the init context, stat(), read() in chunks,
// seek() with each SeekMode, and k6's errors (missing file at init, open() outside init, bad seek).
import { check } from 'k6';
import { open, SeekMode } from 'k6/experimental/fs';

const file = await open('data/words.txt');
let missing = '';
try {
  await open('data/no-such-file.txt');
} catch (e) {
  missing = e.name;
}
if (__ENV.THROW_AFTER_AWAIT) throw new Error('init failed after an await');

export const options = { vus: 2, iterations: 4 };

export default async function () {
  const info = await file.stat();
  await file.seek(0, SeekMode.Start);
  const buf = new Uint8Array(4);
  const chunks = [];
  let total = 0;
  for (;;) {
    const n = await file.read(buf);
    if (n === null) break;
    total += n;
    chunks.push(String.fromCharCode(...buf.subarray(0, n)));
  }
  const end = await file.seek(0, SeekMode.End);
  const back = await file.seek(-3, SeekMode.Current);
  let outside = '';
  try {
    await open('data/words.txt');
  } catch (e) {
    outside = e.name;
  }
  let before = '';
  try {
    await file.seek(-1, SeekMode.Start);
  } catch (e) {
    before = e.name;
  }
  check(info, {
    'stat name': (i) => i.name === 'words.txt',
    'stat size': (i) => i.size === 17,
  });
  check(total, { 'read every byte': (t) => t === info.size });
  check(chunks.join(''), { 'read the text': (t) => t === 'alpha\nbeta\ngamma\n' });
  check(end, { 'seek End is size-1': (e) => e === 16 });
  check(back, { 'seek Current': (b) => b === 13 });
  check(missing, { 'missing file: NotFoundError': (m) => m === 'NotFoundError' });
  check(outside, { 'open outside init: ForbiddenError': (o) => o === 'ForbiddenError' });
  check(before, { 'seek before start: TypeError': (b) => b === 'TypeError' });
}
