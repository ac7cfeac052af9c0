/*
 * dom.js: building the page.  Every piece of data goes in as text
 * (createElement, textContent); nothing here ever parses HTML.
 */

/*
 * h(tag, attrs, ...children): an element.  attrs: properties and
 * attributes (on<event> functions become listeners; class, for, aria-*,
 * data-* and the rest become attributes); children: nodes or strings
 * (strings become text nodes), arrays flattened, null and false skipped.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'value') el.value = v;
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/* show(el, ...children): replaces el's content. */
export function show(el, ...children) {
  clear(el);
  append(el, children);
  return el;
}

/* text(v): a value shown in a cell or a field. */
export function text(v) {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'object') {
    if ('amountMinor' in v && 'currencyCode' in v) return money(v);
    return JSON.stringify(v);
  }
  return String(v);
}

/* money({amountMinor, currencyCode}): minor units and code, as the API gives them. */
export function money(m) {
  if (!m || typeof m !== 'object') return text(m);
  return `${m.amountMinor} ${m.currencyCode} (minor units)`;
}

/* fields(obj, keys?): a <dl> of an object's fields. */
export function fields(obj, keys) {
  const dl = h('dl', { class: 'fields' });
  for (const k of keys || Object.keys(obj)) {
    dl.appendChild(h('dt', null, k));
    dl.appendChild(h('dd', { 'data-field': k }, text(obj[k])));
  }
  return dl;
}

/* table(columns, rows): columns are [title, row => node or string]. */
export function table(columns, rows) {
  return h('div', { class: 'table-wrap' },
    h('table', null,
      h('thead', null, h('tr', null, columns.map(([t]) => h('th', { scope: 'col' }, t)))),
      h('tbody', null, rows.length
        ? rows.map((r) => h('tr', null, columns.map(([, f]) => h('td', null, f(r)))))
        : h('tr', null, h('td', { colspan: columns.length }, 'Nothing here.')))));
}

/* errorBox(e): an ApiError shown as its code, message and each details entry. */
export function errorBox(e) {
  const details = e && e.details ? Object.entries(e.details) : [];
  return h('div', { class: 'error', role: 'alert' },
    h('strong', { class: 'error-code' }, e.code || 'ERROR'),
    e.status ? ` (${e.status}) ` : ' ',
    h('span', { class: 'error-message' }, e.message || String(e)),
    details.length ? h('ul', { class: 'error-details' },
      details.map(([k, v]) => h('li', { 'data-detail': k }, h('code', null, k), ': ', text(v)))) : null);
}

/* link(hash, label): an in-console link. */
export function link(hash, label) {
  return h('a', { href: hash }, label);
}
