/** k6's object bodies: values as k6 v2.2.0 sends them (test/e2e/agreement/multipart.test.ts compares with real k6). */
import { describe, expect, it } from 'vitest';
import { file, formBody } from '../src/modules/http-form.ts';

describe('formBody', () => {
  it("URL-encodes as Go's url.Values (sorted keys, arrays repeated, %v values)", () => {
    const { body, contentType } = formBody({
      b: '2',
      a: 'x y*~',
      arr: [1, 'two'],
      n: null,
      f: 0.25,
      big: 1234567.5,
    });
    expect(contentType).toBe('application/x-www-form-urlencoded');
    expect(body).toBe('a=x+y%2A~&arr=1&arr=two&b=2&big=1.2345675e%2B06&f=0.25&n=%3Cnil%3E');
  });
  it("writes multipart as Go's mime/multipart does once a field is a file", () => {
    const { body, contentType } = formBody({
      note: { k: [1, 2] },
      up: file(new Uint8Array([0, 255]).buffer, 'a"b.bin', 'application/x-t'),
    });
    const boundary = /^multipart\/form-data; boundary=([0-9a-f]{60})$/.exec(contentType)?.[1];
    expect(boundary).toBeDefined();
    expect(Buffer.from(body).toString('latin1')).toBe(
      `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nmap[k:[1 2]]` +
        `\r\n--${boundary}\r\nContent-Disposition: form-data; name="up"; filename="a\\"b.bin"\r\nContent-Type: application/x-t\r\n\r\n\u0000\u00ff` +
        `\r\n--${boundary}--\r\n`,
    );
  });
  it("refuses file data that is neither a string nor an ArrayBuffer, in k6's words", () => {
    expect(() => file(null)).toThrow('invalid type <nil>, expected string or ArrayBuffer');
    expect(file('x').content_type).toBe('application/octet-stream');
  });
});
