// k6/experimental/csv on k6/experimental/fs files: parse() into a SharedArray (asObjects, fromLine/toLine)
// and a Parser read record by record (skipFirstLine), with an option k6 refuses.
import { check } from 'k6';
import { open } from 'k6/experimental/fs';
import csv from 'k6/experimental/csv';

const people = await csv.parse(await open('data/people.csv'), { asObjects: true });
const middle = await csv.parse(await open('data/people.csv'), { fromLine: 2, toLine: 3 });
const parser = new csv.Parser(await open('data/people.csv'), { skipFirstLine: true });
let refused = '';
try {
  new csv.Parser(await open('data/people.csv'), { asObjects: true, skipFirstLine: true });
} catch (e) {
  refused = String(e.message ?? e);
}

export const options = { vus: 1, iterations: 5 };

export default async function () {
  const { done, value } = await parser.next();
  check(people, {
    'parse: 4 records': (p) => p.length === 4,
    'parse: objects by header': (p) => p[1].name === 'alan' && p[1].city === 'wilmslow',
  });
  check(middle, {
    'fromLine/toLine: 2 rows': (m) => m.length === 2,
    'fromLine/toLine: rows 2 and 3': (m) => m[0][0] === 'alan' && m[1][0] === 'grace',
  });
  check(refused, { 'asObjects with skipFirstLine refused': (r) => r.includes("'skipFirstLine' is true") });
  if (done) check(value, { 'parser: done after the last': (v) => Array.isArray(v) && v.length === 0 });
  else check(value, { 'parser: a record of 3 fields': (v) => v.length === 3 && v[0] !== 'name' });
}
