// k6/experimental/fs refusals, compared by their exact name and message: open() of a missing file, of an
// empty or null path, outside the init context; read() into nothing or a plain array; seek() with a bad
// whence, a positive offset from the end, no whence.
import { check } from 'k6';
import { rejection } from './lib/rejection.js';
import { open, SeekMode } from 'k6/experimental/fs';

const file = await open('data/words.txt');
const init = {
  'missing file': [
    await rejection(() => open('data/none.txt')),
    'NotFoundError: no such file or directory "',
  ],
  'empty path': [await rejection(() => open('')), 'TypeError: open() failed; reason: path cannot be empty'],
  'null path': [
    await rejection(() => open(null)),
    'TypeError: open() failed; reason: path cannot be null or undefined',
  ],
  'read into null': [
    await rejection(() => file.read(null)),
    'TypeError: read() failed; reason: into argument cannot be null or undefined',
  ],
  'read into an array': [
    await rejection(() => file.read([1])),
    'TypeError: read() failed; reason: into argument must be a Uint8Array',
  ],
  'bad whence': [
    await rejection(() => file.seek(0, 7)),
    'TypeError: seek() failed; reason: the whence argument must be a SeekMode',
  ],
  'positive offset from the end': [
    await rejection(() => file.seek(1, SeekMode.End)),
    'TypeError: offset cannot be positive when using SeekModeEnd',
  ],
  'no whence': [
    await rejection(() => file.seek(1)),
    'TypeError: seek() failed; reason: the whence argument cannot be null or undefined',
  ],
};

export default async function () {
  const outside = await rejection(() => open('data/words.txt'));
  for (const [name, [got, want]] of Object.entries(init)) check(got, { [name]: (g) => g.startsWith(want) });
  check(outside, {
    'open outside init': (o) =>
      o === 'ForbiddenError: open() failed; reason: opening a file is allowed only in the Init context',
  });
}
