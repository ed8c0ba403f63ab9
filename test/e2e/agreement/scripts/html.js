// k6/html: Response.html() as k6's examples use it (es6sample's "p.description", pantheon's title and h1
// checks), then the Selection and Element APIs on parseHTML; each value goes into a check's name, so the two
// runtimes agree only when every value does.
import { check, group } from 'k6';
import http from 'k6/http';
import { parseHTML } from 'k6/html';

export const options = { vus: 1, iterations: 1 };
const page = open('./data/shop.html');

/** JSON with sorted keys: k6 builds objects from Go maps, whose order is random. */
function stable(v) {
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stable(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

/** One check whose name carries the value. */
function same(name, value) {
  check(null, { [`${name} = ${stable(value)}`]: () => true });
}

export default function () {
  group('examples', () => {
    const res = http.get(`${__ENV.BASE}/shop`);
    check(res, {
      'content type is html': (r) => r.headers['Content-Type'].startsWith('text/html'),
      'welcome message is correct': (r) => r.html('p.description').text().includes('This is a replacement'),
      'title is correct': (r) => r.html('title').text() === 'Welcome to the test shop | Test shop',
      'checkout complete': (r) => r.html('h1').text() === 'Checkout complete',
    });
    same('html() without selector finds', res.html().find('li').size());
  });

  group('selection', () => {
    const doc = parseHTML(page);
    const items = doc.find('li.item');
    same('size', items.size());
    same('text', doc.find('p.description').text());
    same('html', doc.find('p.second').html());
    same('attr', items.first().find('a').attr('href'));
    same('attr default', items.first().attr('nope', 'dflt'));
    same('attr missing', items.first().attr('nope'));
    same('eq', items.eq(1).text());
    same('last', items.last().text());
    same('slice', items.slice(1).size());
    same(
      'map',
      items.map((i, s) => `${i}:${s.find('a').text()}`),
    );
    same('filter', items.filter('.sale').text());
    same('filter fn', items.filter((i) => i !== 1).size());
    same('not', items.not('.sale').size());
    same('is', items.is('.sale'));
    same('has', doc.find('li').has('a[href^="https"]').text());
    same('children', doc.find('#items').children().size());
    same('contents', doc.find('#items').contents().size());
    same('parent', items.first().parent().attr('id'));
    same('parents', items.first().parents().size());
    same('closest', doc.find('a').first().closest('ul').attr('id'));
    same('next', items.first().next().text());
    same('prevAll', items.last().prevAll().size());
    same('siblings', items.first().siblings().size());
    same('nextUntil', items.first().nextUntil('.nope').size());
    same('index', items.eq(2).index());
    same(
      'toArray',
      items.toArray().map((s) => s.find('a').attr('href')),
    );
    same('data', doc.find('h1').data());
    same('data key', doc.find('h1').data('userId'));
    same(
      'data price',
      items.map((_i, s) => s.data('price')),
    );
    same('val input', doc.find('input[name=user]').val());
    same('val checkbox', doc.find('input[name=news]').val());
    same('val select', doc.find('select[name=color]').val());
    same('val multiple', doc.find('select[name=sizes]').val());
    same('val textarea', doc.find('textarea').val());
    same('serialize', doc.find('form').serialize());
    same('serializeArray', doc.find('form').serializeArray());
    same('serializeObject', doc.find('form').serializeObject());
    const seen = [];
    items.each((i, el) => seen.push(`${i}:${el.nodeName()}:${el.textContent()}`));
    same('each', seen);
  });

  group('element', () => {
    const doc = parseHTML(page);
    const h1 = doc.find('h1').get(0);
    same('nodeName', h1.nodeName());
    same('nodeType', h1.nodeType());
    same('id', h1.id());
    same('className', h1.className());
    same('classList', h1.classList());
    same('getAttribute', h1.getAttribute('data-name'));
    same('hasAttribute', [h1.hasAttribute('id'), h1.hasAttribute('nope')]);
    same('attributes', Object.keys(h1.attributes()).sort());
    same('attribute value', h1.attributes()['id'].value);
    same('innerHTML', doc.find('p.second').get(0).innerHTML());
    same('textContent', doc.find('p.second').get(0).textContent());
    const ul = doc.find('#items').get(0);
    same('childElementCount', ul.childElementCount());
    same(
      'children',
      ul.children().map((e) => e.textContent()),
    );
    same('firstElementChild', ul.firstElementChild().textContent());
    same(
      'querySelectorAll',
      ul.querySelectorAll('a').map((e) => e.getAttribute('href')),
    );
    same('querySelector', ul.querySelector('.sale').textContent());
    same('matches', ul.matches('ul#items'));
    same('contains', [
      doc.find('body').get(0).contains(doc.find('h1').get(0)),
      doc.find('h1').get(0).contains(doc.find('body').get(0)),
      ul.contains(doc.find('a').get(0)),
    ]);
    same('isSameNode', [h1.isSameNode(doc.find('h1').get(0)), ul.isSameNode(doc.find('ul').get(0))]);
    same('parentNode', ul.parentNode().nodeName());
    same('nextElementSibling', ul.nextElementSibling().id());
    same('get negative', doc.find('li').get(-1).textContent());
    same('get outside', doc.find('li').get(9) === undefined);
    same('get all', doc.find('li').get().length);
    same('toString', h1.toString());
    same('lang', doc.find('html').get(0).lang());
  });
}
