/*
 * ui.js: the pieces every view is built from: paging, action buttons,
 * labelled inputs, forms whose errors are shown next to the fields they
 * name, and the status badge.  Built on dom.js (text only, no HTML).
 */
import { h, show, clear, text, errorBox } from './dom.js';

export const PAGE = 20;

/* pager(list, cursor, go): previous/next over the list envelope. */
export function pager(list, cursor, go) {
  const at = Number(cursor || 0);
  return h('div', { class: 'pager' },
    h('button', { type: 'button', class: 'secondary', disabled: at === 0, onclick: () => go(Math.max(0, at - PAGE)) }, 'Previous'),
    h('span', { class: 'muted' }, `${list.data.length ? at + 1 : 0}–${at + list.data.length} of ${list.totalCount ?? '?'}`),
    h('button', { type: 'button', class: 'secondary', disabled: !list.hasMore, onclick: () => go(Number(list.nextCursor)) }, 'Next'));
}

/* failed(out, e): shows e in out unless it was a 401 (the sign-in form shows it). */
export function failed(out, e) {
  if (e.status !== 401) show(out, errorBox(e));
}

/* action(label, fn, out, attrs): a button running fn, its error shown in out. */
export function action(label, fn, out, attrs = {}) {
  return h('button', {
    type: 'button', 'data-action': label.toLowerCase(), ...attrs,
    onclick: async (ev) => {
      const b = ev.currentTarget;
      b.disabled = true;
      clear(out);
      try { await fn(); } catch (e) { failed(out, e); } finally { b.disabled = false; }
    },
  }, label);
}

/*
 * input(id, label, attrs): [label element, control].  attrs.options makes
 * a <select> ('' shown as "(any)"); attrs.path names the API field the
 * control fills (a body or query path such as "accountInfo.bankName"),
 * where formErrors shows that field's details entry.
 */
export function input(id, label, attrs = {}) {
  const { options, path, ...rest } = attrs;
  const el = h(options ? 'select' : 'input', { id, name: id, 'data-path': path || id.replace(/^[a-z]+-/, ''), ...rest },
    options ? options.map((o) => h('option', { value: o }, o || '(any)')) : null);
  return [h('label', { for: id }, label, el), el];
}

/* status(s): a transaction, quote or delivery status. */
export function status(s) { return h('span', { class: 'status', 'data-status': s }, text(s)); }

/* clearErrors(form): removes what formErrors added. */
export function clearErrors(form) {
  for (const el of form.querySelectorAll('.field-error')) el.remove();
  for (const el of form.querySelectorAll('[aria-invalid]')) {
    el.removeAttribute('aria-invalid');
    el.removeAttribute('aria-describedby');
  }
}

/*
 * formErrors(form, out, e): e's envelope in out (code, message, every
 * details entry) and, next to each control whose data-path a details key
 * names, that entry's text (aria-invalid, aria-describedby).
 */
export function formErrors(form, out, e) {
  clearErrors(form);
  failed(out, e);
  if (e.status === 401) return;
  for (const [k, v] of Object.entries(e.details || {})) {
    const el = [...form.querySelectorAll('[data-path]')].find((c) => c.dataset.path === k);
    if (!el) continue;
    const id = `${el.id}-error`;
    const msg = h('span', { class: 'field-error', id, 'data-error-for': k }, text(v));
    const label = el.closest('label');
    if (label) label.appendChild(msg);
    else el.after(msg);
    el.setAttribute('aria-invalid', 'true');
    el.setAttribute('aria-describedby', id);
  }
}

/*
 * apiForm(attrs, submit, ...children): a form whose submit runs
 * submit(form); its error goes to an alert box under the form and next to
 * the fields it names.  Returns [form, out].
 */
export function apiForm(attrs, submit, ...children) {
  const out = h('div', { 'aria-live': 'polite' });
  const form = h('form', {
    ...attrs,
    onsubmit: async (ev) => {
      ev.preventDefault();
      clear(out);
      clearErrors(form);
      const b = form.querySelector('button[type=submit]');
      if (b) b.disabled = true;
      try { await submit(form); } catch (e) { formErrors(form, out, e); } finally { if (b) b.disabled = false; }
    },
  }, ...children);
  return [form, out];
}

/* dateRange(prefix): [labels, {startDate, endDate}] inputs of type date. */
export function dateRange(prefix, from = 'From (created on or after)', to = 'To (created on or before)') {
  const [sL, s] = input(`${prefix}-startDate`, from, { type: 'date', path: 'startDate' });
  const [eL, e] = input(`${prefix}-endDate`, to, { type: 'date', path: 'endDate' });
  return [[sL, eL], s, e];
}
