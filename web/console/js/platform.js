/*
 * platform.js: the Platform view: the caller's configuration (GET /config)
 * and its sandbox execution profile (GET /sandbox/lightning-execution-profile),
 * each section with its form for a manage token: the webhook endpoint (set
 * or clear), the fee policy, the supported currencies (edited as a whole
 * list, since PATCH /config replaces it), the execution profile.  Every
 * control's data-path is the key the API's details use for it
 * ("quoteFeePolicy.senderServiceFeeBps", "supportedCurrencies[0].maxAmount"),
 * so a 400 shows each entry next to its field.
 */
import * as api from './api.js';
import { h, show, text, fields, table } from './dom.js';
import { input, apiForm } from './ui.js';

const TYPES = ['OUTGOING', 'INCOMING'];
const PROFILES = ['FULL_NAME', 'BIRTH_DATE', 'NATIONALITY'];
/* A new currency's limits until edited: the whole range the API allows. */
const NEW_MIN = 1;
const NEW_MAX = 100000000000;

/*
 * num(v): a control's value for the API: an integer when it is written as
 * one, else the text as typed, so that the API (not the browser) says what
 * is wrong with it, next to the field.
 */
function num(v) {
  const s = String(v).trim();
  return /^-?[0-9]+$/.test(s) && Number.isSafeInteger(Number(s)) ? Number(s) : s;
}

export async function platform(main, session) {
  const [cfg, profile] = await Promise.all([
    api.get('config'),
    api.get('sandbox/lightning-execution-profile'),
  ]);
  render(main, session, cfg, profile, null);
}

/* reload(main, session, notice): the view again, read back, with notice on top. */
async function reload(main, session, notice) {
  const [cfg, profile] = await Promise.all([
    api.get('config'),
    api.get('sandbox/lightning-execution-profile'),
  ]);
  render(main, session, cfg, profile, notice);
}

function render(main, session, cfg, profile, notice) {
  const manage = session.canManage;
  const done = (msg) => reload(main, session, msg);
  const note = notice ? h('p', { class: 'notice', role: 'status', tabindex: '-1', id: 'platform-notice' }, notice) : null;
  show(main,
    h('h1', null, 'Platform'),
    note,
    h('section', { class: 'card' },
      fields(cfg, ['id', 'umaDomain', 'ppvDomain', 'webhookEndpoint', 'createdAt', 'updatedAt']),
      manage ? webhookForm(cfg, done) : null),
    h('h2', null, 'Fee policy'),
    h('section', { class: 'card' },
      cfg.quoteFeePolicy ? fields(cfg.quoteFeePolicy, ['senderServiceFeeBps', 'receiverServiceFeeBps']) : '—',
      manage ? feeForm(cfg.quoteFeePolicy || {}, done) : null),
    h('h2', null, 'Currencies'),
    currencyTable(cfg.supportedCurrencies || []),
    manage ? currencyForm(cfg.supportedCurrencies || [], done) : null,
    h('h2', null, 'Sandbox execution profile'),
    h('section', { class: 'card', id: 'execution-profile' },
      fields(profile, ['btcFiatSpreadBps', 'lockPriceDurationSeconds']),
      manage ? profileForm(profile, done) : null));
  if (note) note.focus();
}

function currencyTable(list) {
  return table([
    ['Currency', (c) => c.currencyCode],
    ['Min (minor units)', (c) => h('span', { 'data-min': c.currencyCode }, text(c.minAmount))],
    ['Max (minor units)', (c) => h('span', { 'data-max': c.currencyCode }, text(c.maxAmount))],
    ['Directions', (c) => (c.enabledTransactionTypes || []).join(', ') || '—'],
    ['Counterparty fields', (c) => (c.requiredCounterpartyFields || [])
      .map((f) => `${f.profile}${f.mandatory ? ' (mandatory)' : ' (optional)'}`).join(', ') || '—'],
  ], list);
}

/* The webhook endpoint: an URL sets it, an empty field (or Clear) clears it. */
function webhookForm(cfg, done) {
  const [uL, u] = input('p-webhookEndpoint', 'Webhook endpoint (http or https URL; empty to clear)',
    { value: cfg.webhookEndpoint || '', path: 'webhookEndpoint', inputmode: 'url', spellcheck: 'false', autocomplete: 'off', size: 40 });
  const [form, out] = apiForm({ id: 'edit-webhook' }, async () => {
    const v = u.value.trim();
    await api.patch('config', { webhookEndpoint: v === '' ? null : v });
    await done(v === '' ? 'Webhook endpoint cleared.' : 'Webhook endpoint saved.');
  }, uL,
  h('button', { type: 'submit' }, 'Save endpoint'),
  h('button', {
    type: 'button', class: 'secondary', 'data-action': 'clear-webhook',
    onclick: () => { u.value = ''; form.requestSubmit(); },
  }, 'Clear endpoint'));
  return h('div', { class: 'edit' }, form, out);
}

function feeForm(policy, done) {
  const [sL, s] = input('p-senderServiceFeeBps', 'Sender service fee (bps, 0–10000)',
    { value: text(policy.senderServiceFeeBps), path: 'quoteFeePolicy.senderServiceFeeBps', inputmode: 'numeric', size: 8 });
  const [rL, r] = input('p-receiverServiceFeeBps', 'Receiver service fee (bps, 0–10000)',
    { value: text(policy.receiverServiceFeeBps), path: 'quoteFeePolicy.receiverServiceFeeBps', inputmode: 'numeric', size: 8 });
  const [form, out] = apiForm({ id: 'edit-fees' }, async () => {
    await api.patch('config', { quoteFeePolicy: { senderServiceFeeBps: num(s.value), receiverServiceFeeBps: num(r.value) } });
    await done('Fee policy saved.');
  }, sL, rL, h('button', { type: 'submit' }, 'Save fee policy'));
  return h('div', { class: 'edit' }, form, out);
}

function profileForm(profile, done) {
  const [sL, s] = input('p-btcFiatSpreadBps', 'BTC/fiat spread (bps, 0–10000)',
    { value: text(profile.btcFiatSpreadBps), path: 'btcFiatSpreadBps', inputmode: 'numeric', size: 8 });
  const [dL, d] = input('p-lockPriceDurationSeconds', 'Price lock (seconds, 30–3600)',
    { value: text(profile.lockPriceDurationSeconds), path: 'lockPriceDurationSeconds', inputmode: 'numeric', size: 8 });
  const [form, out] = apiForm({ id: 'edit-profile' }, async () => {
    await api.patch('sandbox/lightning-execution-profile',
      { btcFiatSpreadBps: num(s.value), lockPriceDurationSeconds: num(d.value) });
    await done('Execution profile saved.');
  }, sL, dL, h('button', { type: 'submit' }, 'Save execution profile'));
  return h('div', { class: 'edit' }, form, out);
}

/*
 * The currency editor: a fieldset per entry with its five fields; Add and
 * Remove change the list in the page, Save sends the whole list.
 */
let rowSeq = 0;

function currencyForm(list, done) {
  const rows = h('div', { class: 'currency-rows', 'data-path': 'supportedCurrencies' });
  const [newL, newCode] = input('cur-new', 'Add a currency (ISO 4217 code)',
    { path: 'newCurrencyCode', size: 5, maxlength: 3, autocomplete: 'off', spellcheck: 'false' });
  const add = () => {
    const code = newCode.value.trim().toUpperCase();
    if (!code) { newCode.focus(); return; }
    const row = currencyRow({
      currencyCode: code, minAmount: NEW_MIN, maxAmount: NEW_MAX,
      enabledTransactionTypes: TYPES.slice(), requiredCounterpartyFields: [],
    }, newCode);
    rows.appendChild(row);
    newCode.value = '';
    row.querySelector('input').focus();
  };
  newCode.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') { ev.preventDefault(); add(); } });
  for (const c of list) rows.appendChild(currencyRow(c, newCode));
  const [form, out] = apiForm({ id: 'edit-currencies', class: 'currencies' }, async () => {
    const entries = [...rows.querySelectorAll('fieldset.currency')].map((row, i) => rowValue(row, i));
    await api.patch('config', { supportedCurrencies: entries });
    await done('Currencies saved.');
  },
  rows,
  h('div', { class: 'add-currency' }, newL,
    h('button', { type: 'button', class: 'secondary', 'data-action': 'add-currency', onclick: add }, 'Add currency')),
  h('button', { type: 'submit' }, 'Save currencies'));
  return h('section', { class: 'card' }, h('h3', null, 'Edit currencies'),
    h('p', { class: 'muted' }, 'Amounts in minor units of the currency. Saving replaces the whole list; a removed currency keeps its accounts but takes no new payment.'),
    form, out);
}

/* currencyRow(c, focusAfterRemove): one entry's controls, in a fieldset. */
function currencyRow(c, focusAfterRemove) {
  rowSeq += 1;
  const p = `cur${rowSeq}`;
  const code = c.currencyCode || '';
  const [codeL] = input(`${p}-currencyCode`, 'Currency code',
    { value: code, size: 5, maxlength: 3, 'data-field': 'currencyCode', autocomplete: 'off', spellcheck: 'false' });
  const [minL] = input(`${p}-minAmount`, 'Min amount', { value: text(c.minAmount), inputmode: 'numeric', size: 14, 'data-field': 'minAmount' });
  const [maxL] = input(`${p}-maxAmount`, 'Max amount', { value: text(c.maxAmount), inputmode: 'numeric', size: 14, 'data-field': 'maxAmount' });
  const enabled = c.enabledTransactionTypes || [];
  const types = h('fieldset', { class: 'group', 'data-field': 'enabledTransactionTypes' },
    h('legend', null, 'Enabled transaction types'),
    TYPES.map((t) => h('label', { class: 'check', for: `${p}-type-${t}` },
      h('input', { type: 'checkbox', id: `${p}-type-${t}`, value: t, checked: enabled.includes(t), 'data-type': t }), t)));
  const req = c.requiredCounterpartyFields || [];
  /* Profiles in their stored order first, then the others. */
  const order = [...req.map((f) => f.profile).filter((x) => PROFILES.includes(x)), ...PROFILES.filter((x) => !req.some((f) => f.profile === x))];
  const cp = h('fieldset', { class: 'group', 'data-field': 'requiredCounterpartyFields' },
    h('legend', null, 'Sender counterparty fields required'),
    order.map((prof) => {
      const f = req.find((x) => x.profile === prof);
      const cur = f ? (f.mandatory ? 'mandatory' : 'optional') : '';
      const sel = h('select', { id: `${p}-cp-${prof}`, 'data-profile': prof },
        [['', 'not asked'], ['optional', 'optional'], ['mandatory', 'mandatory']]
          .map(([v, l]) => h('option', { value: v, selected: v === cur }, l)));
      return h('label', { for: sel.id }, prof, sel);
    }));
  const row = h('fieldset', { class: 'currency', 'data-currency': code },
    h('legend', null, code || 'New currency'),
    codeL, minL, maxL, types, cp,
    h('button', {
      type: 'button', class: 'secondary', 'data-action': 'remove-currency',
      'aria-label': `Remove currency ${code}`,
      onclick: () => { row.remove(); focusAfterRemove.focus(); },
    }, 'Remove'));
  return row;
}

/*
 * rowValue(row, i): the entry a row holds, its controls' data-path set to
 * the details keys the API gives for entry i.
 */
function rowValue(row, i) {
  const at = `supportedCurrencies[${i}]`;
  const ctl = (f) => row.querySelector(`[data-field=${f}]`);
  for (const f of ['currencyCode', 'minAmount', 'maxAmount', 'enabledTransactionTypes', 'requiredCounterpartyFields']) {
    ctl(f).dataset.path = `${at}.${f}`;
  }
  const profiles = [];
  for (const sel of row.querySelectorAll('select[data-profile]')) {
    sel.dataset.path = '';
    if (!sel.value) continue;
    sel.dataset.path = `${at}.requiredCounterpartyFields[${profiles.length}].mandatory`;
    profiles.push({ profile: sel.dataset.profile, mandatory: sel.value === 'mandatory' });
  }
  return {
    currencyCode: ctl('currencyCode').value.trim().toUpperCase(),
    minAmount: num(ctl('minAmount').value),
    maxAmount: num(ctl('maxAmount').value),
    enabledTransactionTypes: [...row.querySelectorAll('input[data-type]')].filter((b) => b.checked).map((b) => b.value),
    requiredCounterpartyFields: profiles,
  };
}
