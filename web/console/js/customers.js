/*
 * customers.js: the customer list (filters, paging, the create form) and a
 * customer's page (its accounts and balances; fund, with manage).
 */
import * as api from './api.js';
import { h, show, text, money, fields, table, link } from './dom.js';
import { PAGE, pager, input, failed, apiForm } from './ui.js';

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
    } catch (e) { failed(listOut, e); }
  }
  const filters = h('form', { class: 'card', onsubmit: (ev) => { ev.preventDefault(); load(0); } },
    typeL, kycL, pcidL, h('button', { type: 'submit' }, 'Filter'));
  show(main, h('h1', null, 'Customers'), session.canManage ? createCustomer() : null, filters, listOut);
  await load(0);
}

function createCustomer() {
  const [nameL, name] = input('c-fullName', 'Full name', { required: true });
  const [pidL, pid] = input('c-platformCustomerId', 'Platform customer id', { required: true });
  const [typeL, type] = input('c-customerType', 'Type', { options: ['INDIVIDUAL', 'BUSINESS'] });
  const [ppvL, ppv] = input('c-ppvName', 'PPV name (optional)');
  const [form, out] = apiForm({ id: 'create-customer' }, async () => {
    const body = { fullName: name.value, platformCustomerId: pid.value, customerType: type.value };
    if (ppv.value) body.ppvName = ppv.value;
    const c = await api.post('customers', body);
    location.hash = `#/customers/${encodeURIComponent(c.id)}`;
  }, nameL, pidL, typeL, ppvL, h('button', { type: 'submit' }, 'Create customer'));
  return h('section', { class: 'card' }, h('h2', null, 'New customer'), form, out);
}

export async function customer(main, session, id) {
  const [c, internal, external] = await Promise.all([
    api.get(`customers/${encodeURIComponent(id)}`),
    api.get('customers/internal-accounts', { customerId: id, limit: 100 }),
    api.get('customers/external-accounts', { customerId: id, limit: 100 }),
  ]);
  show(main,
    h('h1', null, c.fullName),
    h('section', { class: 'card' }, fields(c)),
    h('p', null, link(`#/transactions?customerId=${encodeURIComponent(c.id)}`, 'Its transactions')),
    h('h2', null, 'Internal accounts'),
    table([
      ['Account', (a) => a.id],
      ['Currency', (a) => a.currency],
      ['Balance', (a) => h('span', { 'data-balance': a.currency }, money(a.balance))],
      ['', (a) => (session.canManage ? fundForm(a, () => customer(main, session, id)) : '')],
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

function fundForm(acct, reload) {
  const [amountL, amount] = input(`fund-${acct.currency}`, `Amount (minor units of ${acct.currency})`,
    { path: 'amountMinor', inputmode: 'numeric', pattern: '[0-9]+', size: 10, required: true });
  const [form, out] = apiForm({ class: 'fund', 'data-currency': acct.currency }, async () => {
    await api.post(`sandbox/internal-accounts/${encodeURIComponent(acct.id)}/fund`, { amountMinor: Number(amount.value) });
    await reload();
  }, amountL, h('button', { type: 'submit', 'data-action': 'fund' }, 'Fund'));
  return h('div', null, form, out);
}
