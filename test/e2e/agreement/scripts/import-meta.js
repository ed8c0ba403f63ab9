// k6's import.meta has resolve() only: specifiers resolve against the calling module's URL.
import { check } from 'k6';
import { fromLib } from './lib/meta-lib.js';

export const options = { iterations: 1 };

const fromInit = import.meta.resolve('./data/x.json');

const throws = (spec) => {
  try {
    import.meta.resolve(spec);
    return 'no error';
  } catch (e) {
    return String(e.message ?? e);
  }
};

export default function () {
  // The resolved URLs are in the check names: both runtimes must print the same ones.
  const urls = {
    init: fromInit,
    lib: fromLib,
    parent: import.meta.resolve('../up.js'),
    space: import.meta.resolve('./a b.js'),
    absolute: import.meta.resolve('/abs/p.js'),
    https: import.meta.resolve('https://example.com/a.js'),
    file: import.meta.resolve('file:///x/y.js'),
  };
  for (const [what, url] of Object.entries(urls))
    check(url, { [`${what}: ${url}`]: (u) => u.startsWith('file:///') || u.startsWith('https://') });
  check(import.meta, {
    'import.meta has resolve only': (m) => Object.keys(m).join() === 'resolve',
    'import.meta.url is undefined': (m) => m.url === undefined,
  });
  check(null, { [`a bare name: ${throws('k6/http')}`]: () => true });
}
