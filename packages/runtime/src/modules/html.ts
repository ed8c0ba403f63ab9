/**
 * k6/html on cheerio (parse5, a spec-compliant HTML5 parser like Go's x/net/html under k6's goquery):
 * `parseHTML(src)` and `Response.html()` give k6's Selection, whose callbacks get k6's arguments
 * (`each(i, Element)`, `map(i, Selection)`, `filter(i, Selection)`), and its Element with k6's methods.
 * cheerio is required on the first parse: Response.html() is synchronous, and scripts that never parse
 * HTML never pay for loading it.
 */
import { createRequire } from 'node:module';
import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element as DomElement } from 'domhandler';
import { encodeValues } from './go-values.ts';

type Cheerio$ = typeof import('cheerio');
let lib: Cheerio$ | undefined;
const cheerio = (): Cheerio$ => {
  lib ??= createRequire(import.meta.url)('cheerio') as Cheerio$;
  return lib;
};

type Sel = Cheerio<AnyNode>;
type Matcher = string | Sel | AnyNode | ((i: number, el: AnyNode) => boolean);

/** k6's parseHTML(src): the document as a Selection. */
export function parseHTML(src: unknown, url = ''): Selection {
  const $ = cheerio().load(String(src ?? ''));
  return new Selection($, $.root() as Sel, url);
}

/** k6's reading of a data-* value: JSON objects and arrays, booleans, canonical numbers, else the text. */
function dataValue(v: string): unknown {
  if (v === '' || v === 'null' || v === 'undefined') return undefined;
  if (v[0] === '{' || v[0] === '[') {
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  }
  if (v === 'true') return true;
  if (v === 'false') return false;
  const n = Number(v);
  return Number.isFinite(n) && String(n) === v ? n : v;
}

/** The initialisms Go's snaker upper-cases when it camel-cases a data-* name (data-user-id → userID). */
const INITIALISMS = new Set(
  'ACL API ASCII CPU CSS DNS EOF GUID HTML HTTP HTTPS ID IP JSON LHS QPS RAM RHS RPC SLA SMTP SQL SSH TCP TLS TTL UDP UI UID UUID URI URL UTF8 VM XML XMPP XSRF XSS'.split(
    ' ',
  ),
);
/** data-foo-bar → fooBar, as k6 names data keys (its first word kept, initialisms upper-cased). */
function attrToProperty(s: string): string {
  const [first = '', ...rest] = s.split('-');
  return (
    first +
    rest
      .map((w) =>
        INITIALISMS.has(w.toUpperCase()) ? w.toUpperCase() : w.charAt(0).toUpperCase() + w.slice(1),
      )
      .join('')
  );
}
/** fooBar → foo-bar. */
const propertyToAttr = (s: string): string => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** goquery's NodeName: the tag for elements, #text, #comment, #document otherwise. */
function nodeName(node: AnyNode | undefined): string {
  if (!node) return '';
  switch (node.type) {
    case 'tag':
    case 'script':
    case 'style':
      return (node as DomElement).name;
    case 'text':
      return '#text';
    case 'comment':
      return '#comment';
    case 'root':
      return '#document';
    case 'directive':
      return 'html';
    default:
      return '';
  }
}

/** Tags k6 wraps in a typed element (AnchorElement, ...): its contains/isSameNode/isEqualNode do not recognise them as arguments. */
const TYPED_TAGS = new Set(
  'a area audio base button canvas data datalist del embed fieldset form iframe img input ins keygen label legend li link map meta meter object ol optgroup option output param pre progress quote script select source style table thead tfoot tbody tr col td th textarea time title track ul video'.split(
    ' ',
  ),
);

/** An argument k6's Element methods accept as an Element (not one of its typed elements). */
function plainElement(v: unknown): Element | null {
  return v instanceof Element && !TYPED_TAGS.has(nodeName(v.node)) ? v : null;
}

const isElement = (n: AnyNode | null | undefined): n is DomElement =>
  !!n && (n.type === 'tag' || n.type === 'script' || n.type === 'style');

/** One name/value pair of serializeArray(). */
export interface FormValue {
  name: string;
  value: unknown;
}

/** k6's Selection: a set of nodes of one document, with goquery's traversal methods. */
export class Selection {
  constructor(
    readonly $: CheerioAPI,
    readonly sel: Sel,
    readonly url = '',
  ) {}

  #of(sel: Sel): Selection {
    return new Selection(this.$, sel, this.url);
  }

  /** A Selection of one node of the same document (Element's traversals use it). */
  ofNode(node: AnyNode): Selection {
    return this.#of(this.$(node) as Sel);
  }

  /** A k6 argument (selector, Selection, Element or callback of (i, Selection)) as a cheerio filter. */
  #matcher(arg: unknown, what: string, fnAllowed = true): Matcher {
    if (typeof arg === 'string') return arg;
    if (arg instanceof Selection) return arg.sel;
    if (arg instanceof Element) return arg.node;
    if (fnAllowed && typeof arg === 'function') {
      const fn = arg as (i: number, s: Selection) => unknown;
      return (i, el) => Boolean(fn(i, this.#of(this.$(el) as Sel)));
    }
    throw new Error(`the argument to ${what}() must be a function, a selector or a selection`);
  }

  #target(arg: unknown): string | Sel | AnyNode {
    if (typeof arg === 'string') return arg;
    if (arg instanceof Selection) return arg.sel;
    if (arg instanceof Element) return arg.node;
    const kind = arg === null ? 'nil' : typeof arg;
    throw new Error(`invalid argument, cannot use a '${kind}' as a selector`);
  }

  find(arg: unknown): Selection {
    const t = this.#target(arg);
    return this.#of(this.sel.find(t as string) as Sel);
  }
  add(arg: unknown): Selection {
    return this.#of(this.sel.add(this.#target(arg) as string) as Sel);
  }
  closest(arg: unknown): Selection {
    return this.#of(this.sel.closest(this.#target(arg) as string) as Sel);
  }
  has(arg: unknown): Selection {
    const t = this.#target(arg);
    // cheerio's has() takes a selector or one node.
    const needle = typeof t === 'string' ? t : 'cheerio' in t ? (t as Sel).get(0) : t;
    return this.#of(this.sel.has(needle as string) as Sel);
  }
  not(arg: unknown): Selection {
    return this.#of(this.sel.not(this.#matcher(arg, 'not') as string) as Sel);
  }
  filter(arg: unknown): Selection {
    return this.#of(this.sel.filter(this.#matcher(arg, 'filter') as string) as Sel);
  }
  is(arg: unknown): boolean {
    return this.sel.is(this.#matcher(arg, 'is') as string);
  }
  single(selector: string): Selection {
    return this.#of(this.sel.find(selector).first() as Sel);
  }

  next(filter?: string): Selection {
    return this.#of(this.sel.next(filter) as Sel);
  }
  nextAll(filter?: string): Selection {
    return this.#of(this.sel.nextAll(filter) as Sel);
  }
  prev(filter?: string): Selection {
    return this.#of(this.sel.prev(filter) as Sel);
  }
  prevAll(filter?: string): Selection {
    return this.#of(this.sel.prevAll(filter) as Sel);
  }
  parent(filter?: string): Selection {
    return this.#of(this.sel.parent(filter) as Sel);
  }
  parents(filter?: string): Selection {
    return this.#of(this.sel.parents(filter) as Sel);
  }
  siblings(filter?: string): Selection {
    return this.#of(this.sel.siblings(filter) as Sel);
  }
  children(filter?: string): Selection {
    return this.#of(this.sel.children(filter) as Sel);
  }
  contents(): Selection {
    return this.#of(this.sel.contents());
  }
  nextUntil(until?: unknown, filter?: string): Selection {
    return this.#of(this.sel.nextUntil(this.#until(until), filter) as Sel);
  }
  prevUntil(until?: unknown, filter?: string): Selection {
    return this.#of(this.sel.prevUntil(this.#until(until), filter) as Sel);
  }
  parentsUntil(until?: unknown, filter?: string): Selection {
    return this.#of(this.sel.parentsUntil(this.#until(until), filter) as Sel);
  }
  #until(until: unknown): string | undefined {
    if (until === undefined || until === null || until === '') return undefined;
    return this.#target(until) as string;
  }

  size(): number {
    return this.sel.length;
  }
  end(): Selection {
    return this.#of(this.sel.end() as Sel);
  }
  eq(i: number): Selection {
    return this.#of(this.sel.eq(i));
  }
  first(): Selection {
    return this.#of(this.sel.first());
  }
  last(): Selection {
    return this.#of(this.sel.last());
  }
  slice(start: number, end?: number): Selection {
    return this.#of(
      this.sel.slice(start, end !== undefined && end < this.sel.length ? end : this.sel.length),
    );
  }

  /** The combined text of every node. */
  text(): string {
    return this.sel.text();
  }
  /** The first node's inner HTML ("" when there is none). */
  html(): string {
    return this.sel.html() ?? '';
  }
  /** The first node's attribute, or `dflt` (undefined) when it has none. */
  attr(name: string, dflt?: unknown): unknown {
    return this.sel.attr(String(name)) ?? dflt;
  }
  /** A form control's value as k6 reads it (input, button, textarea, option, select). */
  val(): unknown {
    const node = this.sel.get(0);
    switch (nodeName(node)) {
      case 'input': {
        const v = this.sel.attr('value');
        if (v !== undefined) return v;
        const type = this.sel.attr('type');
        return type === 'radio' || type === 'checkbox' ? 'on' : '';
      }
      case 'button':
        return this.sel.attr('value') ?? '';
      case 'textarea':
        return this.html();
      case 'option':
        return this.sel.attr('value') ?? this.html();
      case 'select': {
        const selected = this.sel.first().find('option[selected]');
        const read = (o: Sel): string => o.attr('value') ?? o.html() ?? '';
        if (this.sel.attr('multiple') !== undefined)
          return selected.toArray().map((o) => read(this.$(o) as Sel));
        return read(selected as Sel);
      }
      default:
        return undefined;
    }
  }
  /** data-* attributes of the first node: one by name (camelCase), or all of them. */
  data(key?: string): unknown {
    const node = this.sel.get(0);
    if (!isElement(node) || Object.keys(node.attribs).length === 0) return undefined;
    if (key !== undefined) {
      const v = node.attribs[`data-${propertyToAttr(key)}`];
      return v === undefined ? undefined : dataValue(v);
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node.attribs))
      if (k.startsWith('data-') && k.length > 5) out[attrToProperty(k.slice(5))] = dataValue(v);
    return out;
  }

  /** Calls fn(index, Element) for each node. */
  each(fn: unknown): Selection {
    if (typeof fn !== 'function') throw new Error('the argument to each() must be a function');
    this.sel.toArray().forEach((node, i) => {
      (fn as (i: number, e: Element) => unknown)(i, new Element(this.#of(this.$(node) as Sel), node));
    });
    return this;
  }
  /** fn(index, Selection) for each node; the results, in order. */
  map(fn: unknown): unknown[] {
    if (typeof fn !== 'function') throw new Error('the argument to map() must be a function');
    return this.sel
      .toArray()
      .map((node, i) => (fn as (i: number, s: Selection) => unknown)(i, this.#of(this.$(node) as Sel)));
  }
  /** All nodes as Elements, or the one at `i` (negative counts from the end), undefined outside. */
  get(i?: number): Element | Element[] | undefined {
    const nodes = this.sel.toArray();
    if (i === undefined) return nodes.map((n) => new Element(this.#of(this.$(n) as Sel), n));
    if (i >= nodes.length || i <= -nodes.length) return undefined;
    const n = nodes[i < 0 ? nodes.length + i : i]!;
    return new Element(this.#of(this.$(n) as Sel), n);
  }
  /** Each node as its own Selection. */
  toArray(): Selection[] {
    return this.sel.toArray().map((n) => this.#of(this.$(n) as Sel));
  }
  index(arg?: unknown): number {
    if (arg === undefined) return this.sel.index();
    if (typeof arg === 'string') return this.sel.index(arg);
    if (arg instanceof Selection) return this.sel.index(arg.sel);
    if (arg instanceof Element) return this.sel.index(arg.node);
    return -1;
  }

  /** The submittable controls of a form (or of this selection) with their values, as k6 picks them. */
  serializeArray(): FormValue[] {
    const controls = 'input,select,textarea,keygen';
    const picked = this.sel.is('form') ? this.sel.find(controls) : this.sel.filter(controls);
    const out: FormValue[] = [];
    for (const node of picked.toArray()) {
      const s = this.$(node) as Sel;
      const name = s.attr('name') ?? '';
      const type = s.attr('type') ?? '';
      if (name === '' || s.attr('disabled') === 'disabled') continue;
      if (['submit', 'button', 'reset', 'image', 'file'].includes(type)) continue;
      if ((type === 'checkbox' || type === 'radio') && s.attr('checked') !== 'checked') continue;
      out.push({ name, value: this.#of(s).val() });
    }
    return out;
  }
  serializeObject(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const { name, value } of this.serializeArray()) out[name] = value;
    return out;
  }
  /** URL-encoded, keys sorted, a later control replacing an earlier one of the same name (Go's url.Values). */
  serialize(): string {
    const values = new Map<string, string[]>();
    for (const { name, value } of this.serializeArray()) {
      if (typeof value === 'string') values.set(name, [value]);
      else if (Array.isArray(value)) values.set(name, value.map(String));
    }
    return encodeValues(values);
  }
}

/** An attribute as k6's Element.attributes() and getAttributeNode() give it. */
export interface Attribute {
  owner_element: Element;
  name: string;
  value: string;
}

/** k6's Element: one node, with DOM-like methods (called as functions, as in k6). */
export class Element {
  constructor(
    readonly sel: Selection,
    readonly node: AnyNode,
  ) {}

  #wrap(node: AnyNode | null | undefined): Element | undefined {
    return node ? new Element(this.sel.ofNode(node), node) : undefined;
  }
  #list(nodes: AnyNode[]): Element[] {
    return nodes.map((n) => new Element(this.sel.ofNode(n), n));
  }

  nodeName(): string {
    return nodeName(this.node);
  }
  /** DOM node types: element 1, text 3, comment 8, document 9, doctype 10. */
  nodeType(): number | undefined {
    return { tag: 1, script: 1, style: 1, text: 3, comment: 8, root: 9, directive: 10 }[
      this.node.type as string
    ];
  }
  nodeValue(): string | undefined {
    return this.node.type === 'text' || this.node.type === 'comment' ? this.sel.text() : undefined;
  }
  textContent(): string {
    return this.sel.text();
  }
  innerHTML(): string {
    return this.sel.html();
  }
  id(): string {
    return isElement(this.node) ? (this.node.attribs['id'] ?? '') : '';
  }
  className(): string | undefined {
    return isElement(this.node) ? this.node.attribs['class'] : undefined;
  }
  classList(): string[] {
    return (this.className() ?? '').split(/\s+/).filter(Boolean);
  }
  lang(): string | undefined {
    return isElement(this.node) ? this.node.attribs['lang'] : undefined;
  }
  getAttribute(name: string): unknown {
    return this.sel.attr(name);
  }
  getAttributeNode(name: string): Attribute | undefined {
    const v = isElement(this.node) ? this.node.attribs[name] : undefined;
    return v === undefined ? undefined : { owner_element: this, name, value: v };
  }
  hasAttribute(name: string): boolean {
    return isElement(this.node) && name in this.node.attribs;
  }
  hasAttributes(): boolean {
    return isElement(this.node) && Object.keys(this.node.attribs).length > 0;
  }
  attributes(): Record<string, Attribute> {
    const out: Record<string, Attribute> = {};
    if (isElement(this.node))
      for (const [name, value] of Object.entries(this.node.attribs))
        out[name] = { owner_element: this, name, value };
    return out;
  }
  hasChildNodes(): boolean {
    return 'children' in this.node && this.node.children.length > 0;
  }
  childNodes(): Element[] {
    return 'children' in this.node ? this.#list(this.node.children) : [];
  }
  children(): Element[] {
    return this.childNodes().filter((e) => isElement(e.node));
  }
  childElementCount(): number {
    return this.children().length;
  }
  firstChild(): Element | undefined {
    return this.#wrap('children' in this.node ? this.node.children[0] : undefined);
  }
  lastChild(): Element | undefined {
    return this.#wrap('children' in this.node ? this.node.children.at(-1) : undefined);
  }
  firstElementChild(): Element | undefined {
    return this.children()[0];
  }
  lastElementChild(): Element | undefined {
    return this.children().at(-1);
  }
  previousSibling(): Element | undefined {
    return this.#wrap(this.node.prev);
  }
  nextSibling(): Element | undefined {
    return this.#wrap(this.node.next);
  }
  previousElementSibling(): Element | undefined {
    let n = this.node.prev;
    while (n && !isElement(n)) n = n.prev;
    return this.#wrap(n);
  }
  nextElementSibling(): Element | undefined {
    let n = this.node.next;
    while (n && !isElement(n)) n = n.next;
    return this.#wrap(n);
  }
  parentNode(): Element | undefined {
    return this.#wrap(this.node.parent);
  }
  parentElement(): Element | undefined {
    return isElement(this.node.parent) ? this.#wrap(this.node.parent) : undefined;
  }
  ownerDocument(): Element | undefined {
    let n: AnyNode = this.node;
    while (n.parent) n = n.parent;
    return n.type === 'root' ? this.#wrap(n) : undefined;
  }
  namespaceURI(): string {
    const ns = isElement(this.node) ? this.node.namespace : undefined;
    return ns ?? 'http://www.w3.org/1999/xhtml';
  }
  querySelector(selector: string): Element | undefined {
    return this.sel.find(selector).get(0) as Element | undefined;
  }
  querySelectorAll(selector: string): Element[] {
    return this.sel.find(selector).get() as Element[];
  }
  getElementsByTagName(name: string): Element[] {
    return this.querySelectorAll(name);
  }
  getElementsByClassName(name: string): Element[] {
    return this.querySelectorAll(`.${name}`);
  }
  matches(selector: string): boolean {
    return this.sel.is(selector);
  }
  contains(other: unknown): boolean {
    const o = plainElement(other);
    if (!o || o.node === this.node) return false;
    for (let n = o.node.parent; n; n = n.parent) if (n === this.node) return true;
    return false;
  }
  isSameNode(other: unknown): boolean {
    return plainElement(other)?.node === this.node;
  }
  isEqualNode(other: unknown): boolean {
    const o = plainElement(other);
    return !!o && this.sel.$.html(o.node) === this.sel.$.html(this.node);
  }
  selection(): Selection {
    return this.sel;
  }
  toString(): string {
    return isElement(this.node) ? '[object html.Node]' : `[object ${this.nodeName()}]`;
  }
}

const html = { parseHTML };
export default html;
