/** k6/html on cheerio: values as real k6 v2.2.0 gives them for the same page (test/e2e/agreement/html.test.ts compares all). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Element, parseHTML } from '../src/modules/html.ts';

const page = readFileSync(
  new URL('../../../test/e2e/agreement/scripts/data/shop.html', import.meta.url),
  'utf8',
);

describe('k6/html', () => {
  it("serializes a form as k6 does (Go's url.Values: sorted keys, QueryEscape)", () => {
    expect(parseHTML(page).find('form').serialize()).toBe(
      'color=Green&note=Hello+there&pass=&plan=pro&remember=on&sizes=s&sizes=l&token=a+b%26c%3Dd%21%27%28%29%2A&user=alice',
    );
  });
  it('reads data-* as k6 does (initialisms upper-cased, JSON and numbers parsed)', () => {
    expect(parseHTML(page).find('h1').data()).toEqual({
      userID: 42,
      flags: { a: [1, 2] },
      on: true,
      name: 'shop',
    });
  });
  it("passes k6's callback arguments: each(i, Element), map(i, Selection)", () => {
    const items = parseHTML(page).find('li.item');
    const kinds: boolean[] = [];
    items.each((_i: number, e: unknown) => kinds.push(e instanceof Element));
    expect(kinds).toEqual([true, true, true]);
    expect(items.map((i: number, s: { text: () => string }) => `${i}${s.text()}`)).toEqual([
      '0One',
      '1Two',
      '2Three',
    ]);
  });
  it("html() of nothing is '', attr() of nothing its default", () => {
    const none = parseHTML(page).find('nope');
    expect(none.html()).toBe('');
    expect(none.attr('x', 'd')).toBe('d');
  });
});
