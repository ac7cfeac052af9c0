/*
 * transactions.js: the transaction list (filters, paging) and a
 * transaction's page: every field, the sandbox helpers its status allows,
 * the review decision, its webhook events.
 */
import * as api from './api.js';
import { h, show, clear, text, money, fields, table, link } from './dom.js';
import { PAGE, pager, action, input, status, apiForm, formErrors, clearErrors, dateRange } from './ui.js';

const TX_STATUSES = ['', 'CREATED', 'PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'REFUNDED', 'REJECTED', 'EXPIRED'];

/*
 * filterControls(q): the labelled controls of every GET /transactions
 * filter, each control's id f-<parameter>, filled from the hash's query q
 * (#/transactions?customerId=... from a customer's page).  Returns
 * [labels, query()], query() giving the non-empty filters by name.
 */
function filterControls(q) {
  const [cuL, cu] = input('f-customerId', 'Customer id', { value: q.get('customerId') || '', spellcheck: 'false' });
  const [pcL, pc] = input('f-platformCustomerId', 'Platform customer id', { value: q.get('platformCustomerId') || '' });
  const [tyL, ty] = input('f-type', 'Type', { options: ['', 'INCOMING', 'OUTGOING'] });
  const [stL, st] = input('f-status', 'Status', { options: TX_STATUSES });
  const [dateLs, sd, ed] = dateRange('f');
  ty.value = q.get('type') || '';
  st.value = q.get('status') || '';
  sd.value = q.get('startDate') || '';
  ed.value = q.get('endDate') || '';
  const query = () => ({
    customerId: cu.value.trim(), platformCustomerId: pc.value.trim(), type: ty.value, status: st.value,
    startDate: sd.value, endDate: ed.value,
  });
  return [[cuL, pcL, tyL, stL, dateLs], query];
}

/*
 * transactions(main): GET /transactions with every filter, paged; a
 * filter's 400 is shown in its envelope and next to that filter.
 */
export async function transactions(main) {
  const q = new URLSearchParams(location.hash.split('?')[1] || '');
  const listOut = h('div');
  const [labels, query] = filterControls(q);
  async function load(at) {
    try {
      const list = await api.get('transactions', { limit: PAGE, cursor: at, ...query() });
      show(listOut, txTable(list.data), pager(list, at, page));
    } catch (e) { clear(listOut); throw e; }
  }
  const [form, out] = apiForm({ id: 'tx-filters' }, () => load(0), labels, h('button', { type: 'submit' }, 'Filter'));
  function page(at) {
    clear(out);
    clearErrors(form);
    return load(at).catch((e) => formErrors(form, out, e));
  }
  show(main, h('h1', null, 'Transactions'), h('section', { class: 'card' }, h('h2', null, 'Filter'), form, out), listOut);
  await page(0);
}

function txTable(rows) {
  return table([
    ['Transaction', (t) => link(`#/transactions/${encodeURIComponent(t.transactionId)}`, t.transactionId)],
    ['Type', (t) => t.type],
    ['Status', (t) => status(t.status)],
    ['Amount', (t) => money(t.sentAmount || t.receivedAmount)],
    ['Customer', (t) => text(t.platformCustomerId)],
    ['Created', (t) => t.createdAt],
  ], rows);
}

/*
 * helperMoves(t): the sandbox helpers that move t from its status
 * (decisions.md section 14's table).
 */
export function helperMoves(t) {
  const review = t.reviewReason !== undefined && t.reviewReason !== null;
  const quote = t.quoteId !== undefined && t.quoteId !== null;
  const ppv = t.destination && t.destination.destinationType === 'PPV_ADDRESS';
  const moves = [];
  if (review) {
    if (t.status === 'PENDING') moves.push('expire');
    return moves;
  }
  if (quote && t.type === 'OUTGOING') {
    if (t.status === 'CREATED') moves.push('expire');
    if (!ppv && t.status === 'PROCESSING') moves.push('complete', 'fail');
    if (!ppv && t.status === 'COMPLETED') moves.push('return');
    return moves;
  }
  if (quote) return moves;
  if (t.status === 'PENDING') moves.push('complete', 'fail');
  if (t.type === 'OUTGOING' && t.status === 'COMPLETED') moves.push('return');
  return moves;
}

export async function transaction(main, session, id) {
  const t = await api.get(`transactions/${encodeURIComponent(id)}`);
  const events = await api.get('webhooks/deliveries', { transactionId: t.transactionId, limit: 100 });
  const out = h('div', { 'aria-live': 'polite' });
  const reload = () => transaction(main, session, id);
  const sectionActions = [];
  if (session.canManage) {
    const buttons = helperMoves(t).map((m) => action(m[0].toUpperCase() + m.slice(1), async () => {
      await api.post(`sandbox/transactions/${encodeURIComponent(t.transactionId)}/${m}`);
      await reload();
    }, out, { 'data-helper': m }));
    if (buttons.length) sectionActions.push(h('h2', null, 'Sandbox'), h('div', { class: 'actions' }, buttons));
    if (t.reviewReason && t.status === 'PENDING') sectionActions.push(reviewForm(t, out, reload));
  }
  show(main,
    h('h1', null, `Transaction ${t.transactionId}`),
    h('p', null, 'Status: ', status(t.status)),
    out,
    sectionActions,
    h('section', { class: 'card' }, fields(t)),
    h('h2', null, 'Webhook events'),
    table([
      ['Event', (d) => link(`#/webhooks/${encodeURIComponent(d.id)}`, d.type)],
      ['Delivery', (d) => d.status],
      ['Attempts', (d) => String(d.attempts)],
      ['Created', (d) => d.createdAt],
    ], events.data));
}

/* reviewForm: approve (with the counterparty fields) or reject a review case. */
function reviewForm(t, out, reload) {
  const hints = t.actionAvailabilityHints || {};
  const [nL, n] = input('r-senderFullLegalName', 'Sender full legal name');
  const [cL, c] = input('r-senderCountryCode', 'Sender country (ISO 3166 alpha-2)');
  const [dL, d] = input('r-senderDateOfBirthOrRegistrationId', 'Sender date of birth or registration id');
  const [pL, p] = input('r-purposeOfPayment', 'Purpose of payment');
  const [noteL, note] = input('r-note', 'Note (approve) or reason (reject)');
  const approve = action('Approve', async () => {
    const info = {};
    for (const [k, el] of [['senderFullLegalName', n], ['senderCountryCode', c], ['senderDateOfBirthOrRegistrationId', d], ['purposeOfPayment', p]]) {
      if (el.value) info[k] = el.value;
    }
    const body = {};
    if (Object.keys(info).length) body.counterpartyInfo = info;
    if (note.value) body.note = note.value;
    await api.post(`transactions/${encodeURIComponent(t.transactionId)}/approve`, body);
    await reload();
  }, out, { disabled: hints.approveAllowed === false });
  const reject = action('Reject', async () => {
    await api.post(`transactions/${encodeURIComponent(t.transactionId)}/reject`, note.value ? { reason: note.value } : {});
    await reload();
  }, out);
  return h('section', { class: 'card' }, h('h2', null, 'Review'),
    hints.approveAllowed === false ? h('p', { class: 'muted' }, `Approval is blocked: ${text(hints.approveBlockedReason)}`) : null,
    h('form', { onsubmit: (ev) => ev.preventDefault() },
      hints.approveAllowed === false ? null : [nL, cL, dL, pL], noteL),
    h('div', { class: 'actions' }, hints.approveAllowed === false ? null : approve, reject));
}

