/*
 * quotes.js: the quote list (status filter, paging), the create form (for
 * a manage token: source internal account, a PPV address or an external
 * account, locked side and amount, the sender's counterparty information,
 * with the indicative rate of GET /exchange-rates shown while typing), the
 * new quote with its Execute button, and a quote's page (every field, its
 * transaction, Execute while it can be executed).
 */
import * as api from './api.js';
import { h, show, clear, text, money, table, link } from './dom.js';
import { PAGE, pager, input, status, failed, apiForm, formErrors, clearErrors } from './ui.js';

const QUOTE_STATUSES = ['', 'QUOTE_READY', 'BLOCKED', 'EXPIRED', 'PENDING'];
const PROFILES = ['FULL_NAME', 'BIRTH_DATE', 'NATIONALITY'];
const RATE_DELAY_MS = 300;

/*
 * Errors whose details do not name a request field: where the console
 * shows them.  ALIAS maps a details key to the control it is about; FIELD
 * maps an error code without such a key to the control it concerns.
 */
const ALIAS = {
  sendingAmount: 'lockedCurrencyAmount',
  receivingAmount: 'lockedCurrencyAmount',
  currency: 'destination.currencyCode',
  available: 'source.accountId',
};
const FIELD = {
  RECEIVER_NOT_FOUND: 'destination.ppvAddress',
  NOT_FOUND: 'destination.accountId',
  ACCOUNT_NOT_FOUND: 'source.accountId',
  INSUFFICIENT_FUNDS: 'source.accountId',
};

const quoteLink = (id) => link(`#/quotes/${encodeURIComponent(id)}`, id);
const txLink = (id) => (id ? link(`#/transactions/${encodeURIComponent(id)}`, id) : '—');

/* executable(q): whether POST /quotes/{id}/execute can still work. */
function executable(q) {
  return q.status === 'QUOTE_READY' && !q.executedAt && Date.parse(q.expiresAt) > Date.now();
}

export async function quotes(main, session) {
  const q = new URLSearchParams(location.hash.split('?')[1] || '');
  let cursor = 0;
  const listOut = h('div');
  const [stL, st] = input('f-qstatus', 'Status', { options: QUOTE_STATUSES, path: 'status' });
  if (QUOTE_STATUSES.includes(q.get('status'))) st.value = q.get('status');
  async function load(at) {
    cursor = at;
    try {
      const list = await api.get('quotes', { limit: PAGE, cursor, status: st.value });
      show(listOut,
        table([
          ['Quote', (r) => quoteLink(r.quoteId)],
          ['Status', (r) => status(r.status)],
          ['Sending', (r) => money(r.sendingAmount)],
          ['Receiving', (r) => money(r.receivingAmount)],
          ['Fees', (r) => money(r.feesTotal)],
          ['Locked', (r) => `${text(r.lockedCurrencySide)} ${text(r.lockedCurrencyAmount)}`],
          ['Expires', (r) => text(r.expiresAt)],
          ['Transaction', (r) => txLink(r.transactionId)],
        ], list.data),
        pager(list, cursor, load));
    } catch (e) { failed(listOut, e); }
  }
  const create = session.canManage ? await createQuote(() => load(0)) : null;
  show(main, h('h1', null, 'Quotes'), create,
    h('h2', null, 'All quotes'),
    h('form', { class: 'card', id: 'quote-filter', onsubmit: (ev) => { ev.preventDefault(); load(0); } },
      stL, h('button', { type: 'submit' }, 'Filter')),
    listOut);
  await load(0);
}

/*
 * placeNote(form, path, msg): msg next to the control whose data-path is
 * path, as formErrors shows a details entry.
 */
function placeNote(form, path, msg) {
  const el = [...form.querySelectorAll('[data-path]')].find((c) => c.dataset.path === path);
  if (!el) return;
  const id = `${el.id}-error`;
  if (document.getElementById(id)) {
    document.getElementById(id).append(`; ${msg}`);
    return;
  }
  (el.closest('label') || el).after(h('span', { class: 'field-error', id, 'data-error-for': path }, msg));
  el.setAttribute('aria-invalid', 'true');
  el.setAttribute('aria-describedby', id);
}

/*
 * quoteErrors(form, out, e): e's envelope in out, each details entry next
 * to its field, and the entries or codes that name no request field next
 * to the control they are about (ALIAS, FIELD).
 */
function quoteErrors(form, out, e) {
  formErrors(form, out, e);
  if (e.status === 401) return;
  const paths = new Set([...form.querySelectorAll('[data-path]')].map((c) => c.dataset.path));
  let placed = false;
  for (const [k, v] of Object.entries(e.details || {})) {
    if (paths.has(k)) { placed = true; continue; }
    if (ALIAS[k]) { placeNote(form, ALIAS[k], `${k}: ${text(v)}`); placed = true; }
  }
  if (!placed && FIELD[e.code]) placeNote(form, FIELD[e.code], `${e.code}: ${e.message}`);
}

/* The create form, its indicative rate and the quote it made. */
async function createQuote(changed) {
  const [accounts, custs, cfg] = await Promise.all([
    api.get('customers/internal-accounts', { limit: 100 }),
    api.get('customers', { limit: 100 }),
    api.get('config'),
  ]);
  const names = new Map(custs.data.map((c) => [c.id, `${c.fullName} (${c.platformCustomerId})`]));
  const currencyOf = new Map(accounts.data.map((a) => [a.id, a.currency]));

  const srcSel = h('select', { id: 'q-source', name: 'q-source', 'data-path': 'source.accountId' },
    h('option', { value: '' }, '(choose an account, or give its id below)'),
    accounts.data.map((a) => h('option', { value: a.id },
      `${names.get(a.customerId) || a.customerId} — ${a.currency}, balance ${a.balance ? a.balance.amountMinor : '?'}`)));
  const srcL = h('label', { for: 'q-source' }, 'Source: a customer\'s internal account', srcSel);
  const [srcIdL, srcId] = input('q-sourceId', 'Or the internal account id', { path: '', autocomplete: 'off', spellcheck: 'false', size: 44 });

  const [typeL, type] = input('q-destinationType', 'Destination', { options: ['PPV_ADDRESS', 'EXTERNAL_ACCOUNT'], path: 'destination.destinationType' });
  const [ppvL, ppv] = input('q-ppvAddress', 'Receiver\'s PPV address', { path: 'destination.ppvAddress', autocomplete: 'off', spellcheck: 'false', size: 36 });
  const [curL, cur] = input('q-currencyCode', 'Receiving currency', { path: 'destination.currencyCode', size: 5, maxlength: 3, list: 'q-currencies', autocomplete: 'off' });
  const currencies = h('datalist', { id: 'q-currencies' }, (cfg.supportedCurrencies || []).map((c) => h('option', { value: c.currencyCode })));
  const [extL, ext] = input('q-accountId', 'External account id', { path: 'destination.accountId', autocomplete: 'off', spellcheck: 'false', size: 44 });
  const destBox = h('div', { class: 'dest' });
  const showDest = () => show(destBox, type.value === 'PPV_ADDRESS' ? [ppvL, curL] : [extL]);
  showDest();

  const [sideL, side] = input('q-lockedCurrencySide', 'Locked side', { options: ['SENDING', 'RECEIVING'], path: 'lockedCurrencySide' });
  const [amtL, amt] = input('q-lockedCurrencyAmount', 'Amount (minor units of the locked side)',
    { path: 'lockedCurrencyAmount', inputmode: 'numeric', autocomplete: 'off', size: 14 });

  const cp = PROFILES.map((p) => input(`q-${p}`, {
    FULL_NAME: 'Full name (FULL_NAME; default: the customer\'s)',
    BIRTH_DATE: 'Birth date (BIRTH_DATE)',
    NATIONALITY: 'Nationality (NATIONALITY, ISO 3166 alpha-2)',
  }[p], { path: `senderCounterpartyInfo.${p}`, autocomplete: 'off', ...(p === 'BIRTH_DATE' ? { type: 'date' } : {}), ...(p === 'NATIONALITY' ? { size: 3, maxlength: 2 } : {}) }));
  const cpBox = h('fieldset', { class: 'group', id: 'q-counterparty', 'data-path': 'missingCounterpartyFields' },
    h('legend', null, 'Sender counterparty information (optional)'), cp.map(([l]) => l));

  /* The indicative rate, debounced; only the latest answer is shown. */
  const rateBox = h('p', { class: 'rate', id: 'q-rate', 'aria-live': 'polite' });
  const extCurrency = new Map();
  let timer = 0;
  let seq = 0;
  function sourceAccount() { return srcId.value.trim() || srcSel.value; }
  async function destCurrency() {
    if (type.value === 'PPV_ADDRESS') return cur.value.trim().toUpperCase();
    const id = ext.value.trim();
    if (!/^ExternalAccount:[0-9a-f-]{36}$/.test(id)) return '';
    if (!extCurrency.has(id)) {
      extCurrency.set(id, api.get(`customers/external-accounts/${encodeURIComponent(id)}`)
        .then((a) => a.currency, (e) => { extCurrency.delete(id); throw e; }));
    }
    return extCurrency.get(id);
  }
  async function rate() {
    const n = ++seq;
    const from = currencyOf.get(sourceAccount());
    try {
      const to = await destCurrency();
      if (n !== seq) return;
      if (!from || !/^[A-Z]{3}$/.test(to)) {
        show(rateBox, h('span', { class: 'muted' }, 'Indicative rate: choose a source account from the list and the receiving currency or account.'));
        return;
      }
      const query = { sourceCurrency: from, destinationCurrency: to };
      const a = amt.value.trim();
      if (side.value === 'SENDING' && /^[0-9]{1,18}$/.test(a)) query.sendingAmount = a;
      const r = await api.get('exchange-rates', query);
      if (n !== seq) return;
      const row = r.data && r.data[0];
      if (!row) { show(rateBox, h('span', { class: 'muted' }, 'no indicative rate')); return; }
      show(rateBox, 'Indicative rate: 1 ', row.sourceCurrency, ' = ',
        h('strong', { 'data-rate': row.exchangeRate }, row.exchangeRate), ` ${row.destinationCurrency}`,
        ` (spread ${row.spreadBps} bps, fees ${row.feeBps} bps)`,
        row.receivingAmount
          ? ['; sending ', money(row.sendingAmount), ' gives ', h('span', { 'data-receiving': '' }, money(row.receivingAmount)),
            ', fees ', money(row.feesTotal)]
          : null,
        '. Not locked: the quote sets the price.');
    } catch (e) {
      if (n !== seq || e.status === 401) return;
      const why = Object.entries(e.details || {}).map(([k, v]) => `${k}: ${text(v)}`).join('; ');
      show(rateBox, h('span', { class: 'muted', 'data-rate-error': e.code }, `no indicative rate: ${e.message}${why ? ` (${why})` : ''}`));
    }
  }
  const schedule = () => { clearTimeout(timer); timer = setTimeout(rate, RATE_DELAY_MS); };
  for (const el of [srcSel, srcId, type, cur, ext, side, amt]) {
    el.addEventListener('input', schedule);
    el.addEventListener('change', schedule);
  }
  type.addEventListener('change', showDest);

  const result = h('div', { id: 'q-result' });
  const [form, out] = apiForm({ id: 'create-quote' }, async () => {
    clear(result);
    /* The id field wins when filled: its errors go next to it. */
    srcSel.dataset.path = srcId.value.trim() ? '' : 'source.accountId';
    srcId.dataset.path = srcId.value.trim() ? 'source.accountId' : '';
    const destination = type.value === 'PPV_ADDRESS'
      ? { destinationType: 'PPV_ADDRESS', ppvAddress: ppv.value.trim(), currencyCode: cur.value.trim().toUpperCase() }
      : { destinationType: 'EXTERNAL_ACCOUNT', accountId: ext.value.trim() };
    const body = {
      source: { accountId: sourceAccount() },
      destination,
      lockedCurrencySide: side.value,
      lockedCurrencyAmount: amt.value.trim(),
    };
    const info = {};
    for (const [i, p] of PROFILES.entries()) if (cp[i][1].value.trim()) info[p] = cp[i][1].value.trim();
    if (Object.keys(info).length) body.senderCounterpartyInfo = info;
    let qt;
    try {
      qt = await api.post('quotes', body);
    } catch (e) {
      quoteErrors(form, out, e);
      return;
    }
    show(result, newQuote(qt, form, changed));
    result.querySelector('h2').focus();
    changed();
  },
  h('div', { class: 'source' }, srcL, srcIdL),
  typeL, destBox, currencies, sideL, amtL, cpBox,
  h('button', { type: 'submit' }, 'Create quote'));
  schedule();
  return h('section', { class: 'card' }, h('h2', null, 'New quote'), form, rateBox, out, result);
}

/*
 * newQuote(qt, form, changed): the quote just made, with Execute; errors
 * also next to the form's fields; changed() after an execution.
 */
function newQuote(qt, form, changed) {
  const out = h('div', { 'aria-live': 'polite' });
  const done = h('div', { 'aria-live': 'polite' });
  const exec = h('button', {
    type: 'button', 'data-action': 'execute',
    onclick: async () => {
      exec.disabled = true;
      clear(out);
      clearErrors(form);
      try {
        const t = await api.post(`quotes/${encodeURIComponent(qt.quoteId)}/execute`);
        exec.remove();
        show(done, h('p', { class: 'notice', id: 'q-executed' }, 'Executed: transaction ', txLink(t.transactionId), ' is ', status(t.status), '.'));
        changed();
      } catch (e) {
        quoteErrors(form, out, e);
        exec.disabled = false;
      }
    },
  }, 'Execute');
  return h('section', { class: 'card', id: 'new-quote', 'data-quote-id': qt.quoteId },
    h('h2', { tabindex: '-1' }, 'Quote ', quoteLink(qt.quoteId)),
    quoteFields(qt),
    executable(qt) ? h('div', { class: 'actions' }, exec) : null,
    out, done);
}

/* quoteFields(q): a <dl> of every field of a quote, ids linked. */
function quoteFields(q) {
  const first = ['quoteId', 'status', 'exchangeRate', 'sendingAmount', 'receivingAmount', 'feesTotal',
    'lockedCurrencySide', 'lockedCurrencyAmount', 'createdAt', 'expiresAt', 'executedAt', 'transactionId',
    'customerId', 'source', 'destination'];
  const keys = [...first.filter((k) => k in q), ...Object.keys(q).filter((k) => !first.includes(k))];
  const dl = h('dl', { class: 'fields' });
  for (const k of keys) {
    const v = q[k];
    let shown;
    if (k === 'quoteId') shown = quoteLink(v);
    else if (k === 'transactionId') shown = txLink(v);
    else if (k === 'customerId' && v) shown = link(`#/customers/${encodeURIComponent(v)}`, v);
    else if (k === 'status') shown = status(v);
    else if (v && typeof v === 'object' && !('amountMinor' in v)) {
      shown = Object.entries(v).map(([kk, vv]) => `${kk}: ${text(vv)}`).join(', ');
    } else shown = text(v);
    dl.appendChild(h('dt', null, k));
    dl.appendChild(h('dd', { 'data-field': k }, shown));
  }
  return dl;
}

/* A quote's page: its fields, its transaction's status, Execute (manage) while it can. */
export async function quote(main, session, id, executed) {
  const qt = await api.get(`quotes/${encodeURIComponent(id)}`);
  let tx = null;
  try { tx = await api.get(`transactions/${encodeURIComponent(qt.transactionId)}`); } catch (e) { if (e.status === 401) throw e; }
  const out = h('div', { 'aria-live': 'polite' });
  const exec = session.canManage && executable(qt) ? h('button', {
    type: 'button', 'data-action': 'execute',
    onclick: async (ev) => {
      const b = ev.currentTarget;
      b.disabled = true;
      clear(out);
      try {
        const t = await api.post(`quotes/${encodeURIComponent(qt.quoteId)}/execute`);
        await quote(main, session, id, t);
      } catch (e) {
        failed(out, e);
        b.disabled = false;
      }
    },
  }, 'Execute') : null;
  show(main,
    h('h1', null, `Quote ${qt.quoteId}`),
    h('p', null, 'Status: ', status(qt.status), tx ? ['; its transaction: ', status(tx.status)] : null),
    executed ? h('p', { class: 'notice', id: 'q-executed', role: 'status' }, 'Executed: transaction ', txLink(executed.transactionId), ' is ', status(executed.status), '.') : null,
    exec ? h('div', { class: 'actions' }, exec) : null,
    out,
    h('section', { class: 'card' }, quoteFields(qt)),
    h('p', null, link('#/quotes', 'All quotes')));
}
