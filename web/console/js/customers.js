/*
 * customers.js: the customer list (filters, paging, the create form) and a
 * customer's page: its fields and PPV address, its internal accounts
 * (fund) and external accounts, and, with manage, the forms that issue a
 * PPV address, edit or delete the customer, add or delete an external
 * account and send a transfer-out.  Every form's error is shown in its
 * envelope and next to the field its details name.
 */
import * as api from './api.js';
import { h, show, clear, text, money, fields, table, link } from './dom.js';
import { PAGE, pager, action, input, apiForm, formErrors, clearErrors } from './ui.js';

const TYPES = ['INDIVIDUAL', 'ENTITY'];
const KYC = ['APPROVED', 'PENDING', 'REJECTED'];
const ACCOUNT_TYPES = ['CHECKING', 'SAVINGS'];
const ACCOUNT_CATEGORIES = ['PERSONAL', 'BUSINESS'];

const enc = encodeURIComponent;

/*
 * customers(main, session): GET /customers with its filters customerType,
 * kycStatus and platformCustomerId, paged; a filter's 400 is shown next to
 * that filter.
 */
export async function customers(main, session) {
  const listOut = h('div');
  const [typeL, typeF] = input('f-customerType', 'Type', { options: ['', ...TYPES] });
  const [kycL, kycF] = input('f-kycStatus', 'KYC status', { options: ['', ...KYC] });
  const [pcidL, pcidF] = input('f-platformCustomerId', 'Platform customer id');
  async function load(at) {
    try {
      const list = await api.get('customers', {
        limit: PAGE, cursor: at, customerType: typeF.value, kycStatus: kycF.value, platformCustomerId: pcidF.value.trim(),
      });
      show(listOut, customerTable(list.data), pager(list, at, page));
    } catch (e) { clear(listOut); throw e; }
  }
  const [filters, filterOut] = apiForm({ id: 'customer-filters' }, () => load(0),
    typeL, kycL, pcidL, h('button', { type: 'submit' }, 'Filter'));
  function page(at) {
    clear(filterOut);
    clearErrors(filters);
    return load(at).catch((e) => formErrors(filters, filterOut, e));
  }
  show(main, h('h1', null, 'Customers'), session.canManage ? createCustomer() : null,
    h('section', { class: 'card' }, h('h2', null, 'Filter'), filters, filterOut), listOut);
  await page(0);
}

function customerTable(rows) {
  return table([
    ['Name', (c) => link(`#/customers/${enc(c.id)}`, c.fullName)],
    ['Platform id', (c) => c.platformCustomerId],
    ['Type', (c) => c.customerType],
    ['KYC', (c) => c.kycStatus],
    ['PPV address', (c) => text(c.ppvAddress)],
    ['Created', (c) => c.createdAt],
  ], rows);
}

function createCustomer() {
  const [nameL, name] = input('c-fullName', 'Full name', { required: true });
  const [pidL, pid] = input('c-platformCustomerId', 'Platform customer id', { required: true });
  const [typeL, type] = input('c-customerType', 'Type', { options: TYPES });
  const [ppvL, ppv] = input('c-ppvName', 'PPV name (optional)');
  const [form, out] = apiForm({ id: 'create-customer' }, async () => {
    const body = { fullName: name.value, platformCustomerId: pid.value, customerType: type.value };
    if (ppv.value) body.ppvName = ppv.value;
    const c = await api.post('customers', body);
    location.hash = `#/customers/${enc(c.id)}`;
  }, nameL, pidL, typeL, ppvL, h('button', { type: 'submit' }, 'Create customer'));
  return h('section', { class: 'card' }, h('h2', null, 'New customer'), form, out);
}

/*
 * customer(main, session, id): the customer's page.  Throws ApiError when
 * the customer cannot be read (404, 410), which the router shows.
 */
export async function customer(main, session, id) {
  const [c, internal, external] = await Promise.all([
    api.get(`customers/${enc(id)}`),
    api.get('customers/internal-accounts', { customerId: id, limit: 100 }),
    api.get('customers/external-accounts', { customerId: id, limit: 100 }),
  ]);
  const reload = () => customer(main, session, id);
  const manage = session.canManage;
  show(main,
    h('h1', null, c.fullName),
    h('section', { class: 'card' }, fields(c)),
    h('p', null, link(`#/transactions?customerId=${enc(c.id)}`, 'Its transactions')),
    h('h2', null, 'PPV address'),
    h('section', { class: 'card' }, h('p', { id: 'ppv-address' }, text(c.ppvAddress)), manage ? ppvForm(c, reload) : null),
    manage ? editForm(c, reload) : null,
    manage ? deleteCustomer(c) : null,
    h('h2', null, 'Internal accounts'),
    internalTable(internal.data, manage, reload),
    h('h2', null, 'External accounts'),
    externalTable(c, external.data, manage, reload),
    manage ? createExternal(c, internal.data, reload) : null,
    manage ? transferOut(internal.data, external.data) : null);
}

/* ppvForm: POST /customers/{id}/ppv-address {ppvName}; the old address stops resolving. */
function ppvForm(c, reload) {
  const [nameL, name] = input('p-ppvName', 'New PPV name', { required: true, autocomplete: 'off', spellcheck: 'false' });
  const [form, out] = apiForm({ id: 'ppv-form' }, async () => {
    await api.post(`customers/${enc(c.id)}/ppv-address`, { ppvName: name.value.trim() });
    await reload();
  }, nameL, h('button', { type: 'submit' }, c.ppvAddress ? 'Re-issue address' : 'Issue address'));
  return [form, out];
}

/* editForm: PATCH /customers/{id} with the fields that changed. */
function editForm(c, reload) {
  const [nameL, name] = input('e-fullName', 'Full name', { value: c.fullName, required: true });
  const [pidL, pid] = input('e-platformCustomerId', 'Platform customer id', { value: c.platformCustomerId, required: true });
  const [typeL, type] = input('e-customerType', 'Type', { options: TYPES });
  const [kycL, kyc] = input('e-kycStatus', 'KYC status', { options: KYC });
  type.value = c.customerType;
  kyc.value = c.kycStatus;
  const note = h('p', { class: 'muted', 'aria-live': 'polite' });
  const [form, out] = apiForm({ id: 'edit-customer' }, async () => {
    const body = {};
    for (const [k, el] of [['fullName', name], ['platformCustomerId', pid], ['customerType', type], ['kycStatus', kyc]]) {
      if (el.value !== c[k]) body[k] = el.value;
    }
    if (!Object.keys(body).length) { note.textContent = 'Nothing changed.'; return; }
    await api.call('PATCH', `customers/${enc(c.id)}`, { body });
    await reload();
  }, nameL, pidL, typeL, kycL, h('button', { type: 'submit' }, 'Save changes'));
  return h('section', { class: 'card' }, h('h2', null, 'Edit'), form, note, out);
}

/*
 * confirmed(label, confirmLabel, fn, out, attrs): a button that asks again
 * on the page: its click puts "confirmLabel" and "Cancel" in its place, and
 * only the first runs fn (its error shown in out).
 */
function confirmed(label, confirmLabel, fn, out, attrs = {}) {
  const wrap = h('span', { class: 'confirm' });
  const ask = h('button', { type: 'button', class: 'secondary', ...attrs, onclick: () => { show(wrap, yes, no); no.focus(); } }, label);
  const yes = action(confirmLabel, fn, out, { class: 'danger', 'data-action': 'confirm' });
  const no = h('button', { type: 'button', class: 'secondary', 'data-action': 'cancel', onclick: () => { clear(out); show(wrap, ask); ask.focus(); } }, 'Cancel');
  return show(wrap, ask);
}

/* deleteCustomer: DELETE /customers/{id}, then the list; 409 CUSTOMER_HAS_BALANCE shown. */
function deleteCustomer(c) {
  const out = h('div', { 'aria-live': 'polite' });
  const button = confirmed('Delete customer', 'Confirm delete', async () => {
    await api.call('DELETE', `customers/${enc(c.id)}`);
    location.hash = '#/customers';
  }, out, { 'data-action': 'delete-customer' });
  return h('section', { class: 'card', id: 'delete-customer' }, h('h2', null, 'Delete'),
    h('p', { class: 'muted' }, 'Refused while an account holds money or a transaction is not final.'),
    h('div', { class: 'actions' }, button), out);
}

function internalTable(rows, manage, reload) {
  return table([
    ['Account', (a) => a.id],
    ['Currency', (a) => a.currency],
    ['Balance', (a) => h('span', { 'data-balance': a.currency }, money(a.balance))],
    ['', (a) => (manage ? fundForm(a, reload) : '')],
  ], rows);
}

function fundForm(acct, reload) {
  const [amountL, amount] = input(`fund-${acct.currency}`, `Amount (minor units of ${acct.currency})`,
    { path: 'amountMinor', inputmode: 'numeric', pattern: '[0-9]+', size: 10, required: true });
  const [form, out] = apiForm({ class: 'fund', 'data-currency': acct.currency }, async () => {
    await api.post(`sandbox/internal-accounts/${enc(acct.id)}/fund`, { amountMinor: Number(amount.value) });
    await reload();
  }, amountL, h('button', { type: 'submit', 'data-action': 'fund' }, 'Fund'));
  return h('div', null, form, out);
}

/* externalTable: the masked accounts; with manage, a delete with its confirmation per row. */
function externalTable(c, rows, manage, reload) {
  const out = h('div', { 'aria-live': 'polite' });
  const del = (a) => confirmed('Delete', 'Confirm delete', async () => {
    await api.call('DELETE', `customers/external-accounts/${enc(a.id)}`, { query: { customerId: c.id } });
    await reload();
  }, out, { 'data-action': 'delete-external', 'aria-label': `Delete external account ${a.platformAccountId}` });
  const columns = [
    ['Account', (a) => a.id],
    ['Currency', (a) => a.currency],
    ['Bank', (a) => (a.accountInfo ? a.accountInfo.bankName : '—')],
    ['Number', (a) => (a.accountInfo ? `…${a.accountInfo.accountNumberLast4 ?? ''}` : '—')],
    ['Platform account id', (a) => a.platformAccountId],
    ['Status', (a) => a.status],
  ];
  if (manage) columns.push(['', del]);
  return h('div', { id: 'external-accounts' }, out, table(columns, rows));
}

/* createExternal: POST /customers/external-accounts; accountInfo's errors land on its fields. */
function createExternal(c, internal, reload) {
  const currencies = [...new Set(internal.map((a) => a.currency))];
  const [curL, cur] = currencies.length
    ? input('x-currency', 'Currency', { options: currencies })
    : input('x-currency', 'Currency (ISO 4217)', { required: true, size: 4 });
  const [pidL, pid] = input('x-platformAccountId', 'Platform account id', { required: true });
  const [typeL, type] = input('x-accountType', 'Account type', { options: ACCOUNT_TYPES, path: 'accountInfo.accountType' });
  const [catL, cat] = input('x-accountCategory', 'Category', { options: ACCOUNT_CATEGORIES, path: 'accountInfo.accountCategory' });
  const [bankL, bank] = input('x-bankName', 'Bank name', { required: true, path: 'accountInfo.bankName' });
  const [numL, num] = input('x-accountNumber', 'Account number', { required: true, autocomplete: 'off', path: 'accountInfo.accountNumber' });
  const [rtL, rt] = input('x-routingNumber', 'Routing number', { required: true, autocomplete: 'off', path: 'accountInfo.routingNumber' });
  const [form, out] = apiForm({ id: 'create-external-account' }, async () => {
    await api.post('customers/external-accounts', {
      customerId: c.id, currency: cur.value.trim(), platformAccountId: pid.value,
      accountInfo: { accountType: type.value, accountCategory: cat.value, bankName: bank.value, accountNumber: num.value.trim(), routingNumber: rt.value.trim() },
    });
    await reload();
  }, curL, pidL, typeL, catL, bankL, numL, rtL, h('button', { type: 'submit' }, 'Add external account'));
  return h('section', { class: 'card' }, h('h2', null, 'New external account'),
    h('p', { class: 'muted' }, 'The full numbers are sent once; the service keeps only their last four characters.'), form, out);
}

/* select(id, label, path, items): a labelled <select> of [value, text] pairs. */
function select(id, label, path, items) {
  const el = h('select', { id, name: id, 'data-path': path }, items.map(([v, t]) => h('option', { value: v }, t)));
  return [h('label', { for: id }, label, el), el];
}

/*
 * transferOut: POST /transfer-out from one of the customer's internal
 * accounts to one of its external accounts in the same currency, then the
 * new transaction's page.
 */
function transferOut(internal, external) {
  if (!internal.length || !external.length) {
    return h('section', { class: 'card' }, h('h2', null, 'Transfer out'),
      h('p', { class: 'muted' }, 'A transfer-out needs an external account of this customer.'));
  }
  const [srcL, src] = select('t-source', 'From (internal account)', 'source.accountId',
    internal.map((a) => [a.id, `${a.currency}: ${a.balance ? a.balance.amountMinor : '?'} minor units (…${a.id.slice(-4)})`]));
  const dests = (cur) => external.filter((a) => a.currency === cur)
    .map((a) => [a.id, `${a.currency}: ${a.accountInfo ? a.accountInfo.bankName : ''} …${a.accountInfo ? a.accountInfo.accountNumberLast4 : ''} (${a.platformAccountId})`]);
  const [dstL, dst] = select('t-destination', 'To (external account)', 'destination.accountId', []);
  const currencyOf = () => (internal.find((a) => a.id === src.value) || {}).currency;
  const refill = () => show(dst, dests(currencyOf()).map(([v, t]) => h('option', { value: v }, t)));
  const first = internal.find((a) => external.some((x) => x.currency === a.currency));
  if (first) src.value = first.id;
  refill();
  src.addEventListener('change', refill);
  const [amtL, amt] = input('t-amount', 'Amount (minor units)', { path: 'amount.amountMinor', inputmode: 'numeric', pattern: '[0-9]+', size: 12, required: true });
  const [form, out] = apiForm({ id: 'transfer-out' }, async () => {
    const tx = await api.post('transfer-out', {
      source: { accountId: src.value }, destination: { accountId: dst.value },
      amount: { currencyCode: currencyOf(), amountMinor: amt.value.trim() },
    });
    location.hash = `#/transactions/${enc(tx.transactionId)}`;
  }, srcL, dstL, amtL, h('button', { type: 'submit' }, 'Send transfer-out'));
  return h('section', { class: 'card' }, h('h2', null, 'Transfer out'), form, out);
}
