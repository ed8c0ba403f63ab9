// k6/experimental/csv and fs refusals, compared by their exact texts: a record with the wrong field
// count (parse() at once, a Parser when next() reaches it), options k6 refuses, a directory opened;
// and toLine, fromLine, asObjects with toLine.
import { check } from 'k6';
import { rejection } from './lib/rejection.js';
import { open } from 'k6/experimental/fs';
import csv from 'k6/experimental/csv';

const bad = await rejection(async () => csv.parse(await open('data/bad.csv'), { delimiter: ';' }));
const delimiter = await rejection(async () => csv.parse(await open('data/people.csv'), { delimiter: ';;' }));
const order = await rejection(async () =>
  csv.parse(await open('data/people.csv'), { fromLine: 3, toLine: 2 }),
);
const dir = await rejection(async () => open('data'));
const upTo2 = await csv.parse(await open('data/people.csv'), { toLine: 2 });
const from3 = await csv.parse(await open('data/people.csv'), { fromLine: 3 });
const parser = new csv.Parser(await open('data/people.csv'), { asObjects: true, toLine: 2 });
const names = [];
for (;;) {
  const { done, value } = await parser.next();
  if (done) break;
  names.push(value.name);
}

const badParser = new csv.Parser(await open('data/bad.csv'), { delimiter: ';' });
const parsed = [];
for (let k = 0; k < 3; k++) {
  try {
    const { done, value } = await badParser.next();
    parsed.push(done ? 'done' : value.join(';'));
  } catch (e) {
    parsed.push(`rejected: ${e.message ?? e}`);
  }
}

export default function () {
  check(bad, {
    'wrong field count': (r) =>
      r === 'GoError: failed to read record; reason: record on line 3: wrong number of fields',
  });
  check(delimiter, {
    'long delimiter': (r) =>
      r ===
      'GoError: failed to interpret the provided Parser options; reason: delimiter must be a single character',
  });
  check(order, {
    'fromLine >= toLine': (r) =>
      r ===
      'GoError: failed to interpret the provided Parser options; reason: fromLine must be less than or equal to toLine',
  });
  check(dir, {
    directory: (r) =>
      r.startsWith('InvalidResourceError: cannot open "') &&
      r.endsWith('/data": opening a directory is not supported'),
  });
  check(upTo2, { 'toLine 2: lines 0..2': (r) => r.length === 3 && r[2][0] === 'alan' });
  check(from3, { 'fromLine 3: the last two': (r) => r.length === 2 && r[0][0] === 'grace' });
  check(parsed, {
    'Parser: records, then the malformed one rejects': (p) =>
      p.join('|') === 'a;b|1;2|rejected: record on line 3: wrong number of fields',
  });
  check(names, { 'asObjects with toLine 2': (n) => n.join(',') === 'ada,alan' });
}
