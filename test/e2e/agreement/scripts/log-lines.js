// Log lines whose text needs logrus's quoting, each in k6's words (test/e2e/agreement/log-format.test.ts).
export const options = { iterations: 1 };

export default function () {
  console.log('hello world', { a: 1, b: 'x y' });
  console.log('quote " and \\ backslash\nnewline\ttab');
  console.log('plain-token_1.2/x@y^z+w');
  console.warn('no\u00a0break, bell\u0007, del\u007f, line\u2028sep, é and 😀');
  console.error('');
  console.info('=', '');
}
