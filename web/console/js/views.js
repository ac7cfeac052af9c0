/*
 * views.js: the console's pages.  Each view(main, session, id) fills main
 * from the API; actions that need manage are drawn only when
 * session.canManage.  Errors of an action are shown next to it, in the
 * API's envelope (code, message, details).
 */
import * as api from './api.js';
import { h, show, clear, text, money, fields, table, errorBox, link } from './dom.js';

const PAGE = 20;

/* pager(list, cursor, go): previous/next over the list envelope. */
function pager(list, cursor, go) {
  const at = Number(cursor || 0);
  return h('div', { class: 'pager' },
    h('button', { type: 'button', class: 'secondary', disabled: at === 0, onclick: () => go(Math.max(0, at - PAGE)) }, 'Previous'),
    h('span', { class: 'muted' }, `${list.data.length ? at + 1 : 0}–${at + list.data.length} of ${list.totalCount ?? '?'}`),
    h('button', { type: 'button', class: 'secondary', disabled: !list.hasMore, onclick: () => go(Number(list.nextCursor)) }, 'Next'));
}

/* action(label, fn, out): a button running fn, its error shown in out. */
function action(label, fn, out, attrs = {}) {
  return h('button', {
    type: 'button', 'data-action': label.toLowerCase(), ...attrs,
    onclick: async (ev) => {
      const b = ev.currentTarget;
      b.disabled = true;
      clear(out);
      try { await fn(); } catch (e) { if (e.status !== 401) show(out, errorBox(e)); } finally { b.disabled = false; }
    },
  }, label);
}

function input(id, label, attrs = {}) {
  const el = h(attrs.options ? 'select' : 'input', { id, name: id, ...attrs, options: null },
    attrs.options ? attrs.options.map((o) => h('option', { value: o }, o || '(any)')) : null);
  return [h('label', { for: id }, label, el), el];
}

function status(s) { return h('span', { class: 'status', 'data-status': s }, text(s)); }

/* --- Platform ------------------------------------------------------------- */

export async function platform(main) {
  const cfg = await api.get('config');
  show(main,
    h('h1', null, 'Platform'),
    h('section', { class: 'card' }, fields(cfg, ['id', 'umaDomain', 'ppvDomain', 'webhookEndpoint', 'createdAt', 'updatedAt'])),
    h('h2', null, 'Fee policy'),
    h('section', { class: 'card' }, cfg.quoteFeePolicy ? fields(cfg.quoteFeePolicy) : '—'),
    h('h2', null, 'Currencies'),
    table([
      ['Currency', (c) => c.currencyCode],
      ['Min', (c) => text(c.minAmount)],
      ['Max', (c) => text(c.maxAmount)],
      ['Directions', (c) => (c.enabledTransactionTypes || []).join(', ')],
      ['Counterparty fields', (c) => (c.requiredCounterpartyFields || []).map((f) => `${f.name || f.profile}${f.mandatory ? ' (mandatory)' : ''}`).join(', ') || '—'],
    ], cfg.supportedCurrencies || []));
}

/* --- Customers ------------------------------------------------------------ */

export async function customers(main, session) {
  let cursor = 0;
  const listOut = h('div');
  const [typeL, typeF] = input('f-customerType', 'Type', { options: ['', 'INDIVIDUAL', 'BUSINESS'] });
  const [kycL, kycF] = input('f-kycStatus', 'KYC status', { options: ['', 'APPROVED', 'PENDING', 'REJECTED'] });
  const [pcidL, pcidF] = input('f-platformCustomerId', 'Platform customer id');
  async function load(at) {
    cursor = at;
    try {
      const list = await api.get('customers', { limit: PAGE, cursor, customerType: typeF.value, kycStatus: kycF.value, platformCustomerId: pcidF.value });
      show(listOut,
        table([
          ['Name', (c) => link(`#/customers/${encodeURIComponent(c.id)}`, c.fullName)],
          ['Platform id', (c) => c.platformCustomerId],
          ['Type', (c) => c.customerType],
          ['KYC', (c) => c.kycStatus],
          ['PPV address', (c) => text(c.ppvAddress)],
          ['Created', (c) => c.createdAt],
        ], list.data),
        pager(list, cursor, load));
    } catch (e) { if (e.status !== 401) show(listOut, errorBox(e)); }
  }
  const filters = h('form', { class: 'card', onsubmit: (ev) => { ev.preventDefault(); load(0); } },
    typeL, kycL, pcidL, h('button', { type: 'submit' }, 'Filter'));
  show(main, h('h1', null, 'Customers'), session.canManage ? createCustomer() : null, filters, listOut);
  await load(0);
}

function createCustomer() {
  const out = h('div');
  const [nameL, name] = input('c-fullName', 'Full name', { required: true });
  const [pidL, pid] = input('c-platformCustomerId', 'Platform customer id', { required: true });
  const [typeL, type] = input('c-customerType', 'Type', { options: ['INDIVIDUAL', 'BUSINESS'] });
  const [ppvL, ppv] = input('c-ppvName', 'PPV name (optional)');
  const form = h('form', {
    id: 'create-customer',
    onsubmit: async (ev) => {
      ev.preventDefault();
      clear(out);
      const body = { fullName: name.value, platformCustomerId: pid.value, customerType: type.value };
      if (ppv.value) body.ppvName = ppv.value;
      try {
        const c = await api.post('customers', body);
        location.hash = `#/customers/${encodeURIComponent(c.id)}`;
      } catch (e) { if (e.status !== 401) show(out, errorBox(e)); }
    },
  }, nameL, pidL, typeL, ppvL, h('button', { type: 'submit' }, 'Create customer'));
  return h('section', { class: 'card' }, h('h2', null, 'New customer'), form, out);
}

export async function customer(main, session, id) {
  const [c, internal, external] = await Promise.all([
    api.get(`customers/${encodeURIComponent(id)}`),
    api.get('customers/internal-accounts', { customerId: id, limit: 100 }),
    api.get('customers/external-accounts', { customerId: id, limit: 100 }),
  ]);
  const out = h('div');
  show(main,
    h('h1', null, c.fullName),
    h('section', { class: 'card' }, fields(c)),
    h('p', null, link(`#/transactions?customerId=${encodeURIComponent(c.id)}`, 'Its transactions')),
    h('h2', null, 'Internal accounts'),
    out,
    table([
      ['Account', (a) => a.id],
      ['Currency', (a) => a.currency],
      ['Balance', (a) => h('span', { 'data-balance': a.currency }, money(a.balance))],
      ['', (a) => (session.canManage ? fundForm(a, out, () => customer(main, session, id)) : '')],
    ], internal.data),
    h('h2', null, 'External accounts'),
    table([
      ['Account', (a) => a.id],
      ['Currency', (a) => a.currency],
      ['Bank', (a) => a.accountInfo ? a.accountInfo.bankName : '—'],
      ['Number', (a) => a.accountInfo ? `…${a.accountInfo.accountNumberLast4 ?? a.accountInfo.accountNumber ?? ''}` : '—'],
      ['Platform account id', (a) => a.platformAccountId],
      ['Status', (a) => a.status],
    ], external.data));
}

function fundForm(acct, out, reload) {
  const fid = `fund-${acct.currency}`;
  const amount = h('input', { id: fid, name: fid, inputmode: 'numeric', pattern: '[0-9]+', size: 10, required: true });
  return h('form', {
    class: 'fund', 'data-currency': acct.currency,
    onsubmit: async (ev) => {
      ev.preventDefault();
      clear(out);
      try {
        await api.post(`sandbox/internal-accounts/${encodeURIComponent(acct.id)}/fund`, { amountMinor: Number(amount.value) });
        await reload();
      } catch (e) { if (e.status !== 401) show(out, errorBox(e)); }
    },
  }, h('label', { for: fid }, `Amount (minor units of ${acct.currency})`, amount), h('button', { type: 'submit', 'data-action': 'fund' }, 'Fund'));
}

/* --- Transactions --------------------------------------------------------- */

const TX_STATUSES = ['', 'CREATED', 'PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'REFUNDED', 'REJECTED', 'EXPIRED'];

export async function transactions(main) {
  const q = new URLSearchParams(location.hash.split('?')[1] || '');
  let cursor = 0;
  const listOut = h('div');
  const [stL, st] = input('f-status', 'Status', { options: TX_STATUSES });
  const [tyL, ty] = input('f-type', 'Type', { options: ['', 'INCOMING', 'OUTGOING'] });
  const [cuL, cu] = input('f-customerId', 'Customer id', { value: q.get('customerId') || '' });
  async function load(at) {
    cursor = at;
    try {
      const list = await api.get('transactions', { limit: PAGE, cursor, status: st.value, type: ty.value, customerId: cu.value.trim() });
      show(listOut,
        table([
          ['Transaction', (t) => link(`#/transactions/${encodeURIComponent(t.transactionId)}`, t.transactionId)],
          ['Type', (t) => t.type],
          ['Status', (t) => status(t.status)],
          ['Amount', (t) => money(t.sentAmount || t.receivedAmount)],
          ['Customer', (t) => text(t.platformCustomerId)],
          ['Created', (t) => t.createdAt],
        ], list.data),
        pager(list, cursor, load));
    } catch (e) { if (e.status !== 401) show(listOut, errorBox(e)); }
  }
  show(main, h('h1', null, 'Transactions'),
    h('form', { class: 'card', onsubmit: (ev) => { ev.preventDefault(); load(0); } }, stL, tyL, cuL, h('button', { type: 'submit' }, 'Filter')),
    listOut);
  await load(0);
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

/* --- Webhooks ------------------------------------------------------------- */

export async function webhooks(main, session) {
  let cursor = 0;
  const listOut = h('div');
  const out = h('div', { 'aria-live': 'polite' });
  const [stL, st] = input('f-wstatus', 'Status', { options: ['', 'PENDING', 'DELIVERED', 'FAILED'] });
  const [txL, tx] = input('f-wtransactionId', 'Transaction id');
  async function load(at) {
    cursor = at;
    try {
      const list = await api.get('webhooks/deliveries', { limit: PAGE, cursor, status: st.value, transactionId: tx.value.trim() });
      show(listOut,
        table([
          ['Event', (d) => link(`#/webhooks/${encodeURIComponent(d.id)}`, d.id)],
          ['Type', (d) => d.type],
          ['Status', (d) => status(d.status)],
          ['Attempts', (d) => String(d.attempts)],
          ['Last answer', (d) => text(d.lastResponseStatus)],
          ['Created', (d) => d.createdAt],
          ['', (d) => (session.canManage ? action('Retry', async () => {
            await api.post(`webhooks/deliveries/${encodeURIComponent(d.id)}/retry`);
            await load(cursor);
          }, out) : '')],
        ], list.data),
        pager(list, cursor, load));
    } catch (e) { if (e.status !== 401) show(listOut, errorBox(e)); }
  }
  show(main, h('h1', null, 'Webhook deliveries'),
    h('form', { class: 'card', onsubmit: (ev) => { ev.preventDefault(); load(0); } }, stL, txL, h('button', { type: 'submit' }, 'Filter')),
    out, listOut);
  await load(0);
}

export async function delivery(main, session, id) {
  const d = await api.get(`webhooks/deliveries/${encodeURIComponent(id)}`);
  const out = h('div', { 'aria-live': 'polite' });
  const { event, attemptLog, ...item } = d;
  show(main,
    h('h1', null, `Event ${d.id}`),
    out,
    session.canManage ? h('div', { class: 'actions' }, action('Retry', async () => {
      await api.post(`webhooks/deliveries/${encodeURIComponent(d.id)}/retry`);
      await delivery(main, session, id);
    }, out)) : null,
    h('section', { class: 'card' }, fields(item)),
    d.transactionId ? h('p', null, link(`#/transactions/${encodeURIComponent(d.transactionId)}`, 'Its transaction')) : null,
    h('h2', null, 'Payload'),
    h('pre', { id: 'payload' }, JSON.stringify(event, null, 2)),
    h('h2', null, 'Attempts'),
    table([
      ['At', (a) => a.at],
      ['Answer', (a) => text(a.responseStatus)],
      ['Error', (a) => text(a.error)],
      ['Duration (ms)', (a) => text(a.durationMs)],
      ['Manual', (a) => (a.manual ? 'yes' : 'no')],
    ], attemptLog || []));
}
