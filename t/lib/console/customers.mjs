// t/lib/console/customers.mjs - a customer's life in the console, in
// chromium, for t/32-console.t: create one with the form; edit its name and
// KYC status; a taken platformCustomerId (409) and a too long name (400
// next to the field); issue a PPV address; an external account refused for
// its routing number (the error next to that field), then added; fund;
// a transfer-out refused for its amount (409 INSUFFICIENT_FUNDS), then
// sent, landing on its transaction; the transaction list filtered by
// platformCustomerId and dates, and a bad filter's 400 next to it; an
// external account deleted after the inline confirmation; a customer with
// a balance refused deletion (409), one without deleted; 360 px wide; the
// view token sees none of the forms.
import { BASE, ID, SECRET, VIEW_ID, VIEW_SECRET, RUN, T, api, step, textOf, fill, go, scenario } from './harness.mjs';

const enc = encodeURIComponent;

/* rowsOf(page, sel): the text of every row of the table under sel. */
const rowsOf = (page, sel) => page.$$eval(`${sel} tbody tr`, (trs) => trs.map((tr) => tr.textContent));

/* errorCode(page, scope): the code of the error envelope shown under scope. */
const errorCode = async (page, scope) => {
  await page.waitForSelector(`${scope} .error .error-code`, { timeout: T });
  return textOf(page, `${scope} .error .error-code`);
};

/* setValue(page, sel, v): a control's value, as its picker would set it. */
const setValue = (page, sel, v) => page.$eval(sel, (el, x) => { el.value = x; el.dispatchEvent(new Event('change', { bubbles: true })); }, v);

await scenario(async ({ page, dialogs, expectErrors, shot, signIn }) => {
  const name = `Cust Ann ${RUN}`;
  const pcid = `cust-a-${RUN}`;
  const other = api('POST', '/customers', { platformCustomerId: `cust-b-${RUN}`, customerType: 'ENTITY', fullName: `Cust Bob ${RUN}` });
  /* More than one page of customers, for the pager. */
  for (let i = api('GET', '/customers?limit=1').totalCount; i < 24; i += 1) {
    api('POST', '/customers', { platformCustomerId: `cust-page-${i}-${RUN}`, customerType: 'INDIVIDUAL', fullName: `Cust Page ${i} ${RUN}` });
  }

  await go(page, '');
  await signIn(ID, SECRET);
  await page.waitForSelector('#create-customer', { timeout: T });

  // Create with the form.
  await page.type('#c-fullName', name);
  await page.type('#c-platformCustomerId', pcid);
  await page.select('#c-customerType', 'ENTITY');
  await page.click('#create-customer button[type=submit]');
  let customerId = '';
  await step('create: the customer\'s page, ENTITY', async () => {
    await page.waitForFunction((n) => document.querySelector('h1')?.textContent === n, { timeout: T }, name);
    customerId = decodeURIComponent(page.url().split('#/customers/')[1] || '');
    const type = await textOf(page, 'dd[data-field=customerType]');
    return (/^Customer:/.test(customerId) && type === 'ENTITY') || `${customerId} ${type}`;
  });
  await shot('created');
  const custPage = `#/customers/${enc(customerId)}`;

  // Edit its name and KYC status.
  const renamed = `Cust Anna ${RUN}`;
  await fill(page, '#e-fullName', renamed);
  await page.select('#e-kycStatus', 'PENDING');
  await page.click('#edit-customer button[type=submit]');
  await step('edit: the new name and kycStatus PENDING shown', async () => {
    await page.waitForFunction((n) => document.querySelector('h1')?.textContent === n, { timeout: T }, renamed);
    const kyc = await textOf(page, 'dd[data-field=kycStatus]');
    const api_ = api('GET', `/customers/${enc(customerId)}`);
    return (kyc === 'PENDING' && api_.fullName === renamed && api_.kycStatus === 'PENDING') || `${kyc} ${JSON.stringify(api_)}`;
  });
  await shot('edited');

  // Bad edits: another live customer's platformCustomerId; a name too long.
  expectErrors(true);
  await fill(page, '#e-platformCustomerId', other.platformCustomerId);
  await page.click('#edit-customer button[type=submit]');
  await step('edit: another customer\'s platformCustomerId shows 409 CUSTOMER_ALREADY_EXISTS', async () => {
    const code = await errorCode(page, '#edit-customer ~ div');
    return code === 'CUSTOMER_ALREADY_EXISTS' || code;
  });
  await shot('edit-409');
  await fill(page, '#e-platformCustomerId', pcid);
  await setValue(page, '#e-fullName', 'x'.repeat(257));
  await page.click('#edit-customer button[type=submit]');
  await step('edit: a 257-character name shows the 400 next to the name field', async () => {
    await page.waitForSelector('.field-error[data-error-for=fullName]', { timeout: T });
    const msg = await textOf(page, '.field-error[data-error-for=fullName]');
    const inv = await page.$eval('#e-fullName', (el) => el.getAttribute('aria-invalid'));
    return (/256/.test(msg) && inv === 'true') || `${msg} ${inv}`;
  });
  await shot('edit-400-field');
  expectErrors(false);

  // A new PPV address.
  await go(page, custPage);
  await page.waitForSelector('#ppv-form', { timeout: T });
  await page.type('#p-ppvName', `ppv-${RUN}`);
  await page.click('#ppv-form button[type=submit]');
  await step('PPV address: re-issued under the new name', async () => {
    await page.waitForFunction((p) => (document.getElementById('ppv-address')?.textContent || '').startsWith(`${p}@`), { timeout: T }, `ppv-${RUN}`);
    return true;
  });
  await shot('ppv-address');

  // An external account: a routing number too short, then a good one.
  await page.select('#x-currency', 'USD');
  await page.type('#x-platformAccountId', `ext-${RUN}`);
  await page.type('#x-bankName', 'First Bank');
  await page.type('#x-accountNumber', '000123450001');
  await page.type('#x-routingNumber', '12');
  expectErrors(true);
  await page.click('#create-external-account button[type=submit]');
  await step('external account: a 2-character routing number, the 400 next to that field', async () => {
    const sel = '#create-external-account .field-error[data-error-for="accountInfo.routingNumber"]';
    await page.waitForSelector(sel, { timeout: T });
    const msg = await textOf(page, sel);
    const code = await errorCode(page, '#create-external-account ~ div');
    const inv = await page.$eval('#x-routingNumber', (el) => el.getAttribute('aria-invalid'));
    return (code === 'INVALID_REQUEST' && /4 to 11/.test(msg) && inv === 'true') || `${code} ${msg} ${inv}`;
  });
  await shot('external-400-routing');
  expectErrors(false);
  await fill(page, '#x-routingNumber', '021000021');
  await page.click('#create-external-account button[type=submit]');
  await step('external account: added, masked in the table', async () => {
    await page.waitForFunction((p) => [...document.querySelectorAll('#external-accounts tbody tr')].some((tr) => tr.textContent.includes(p)),
      { timeout: T }, `ext-${RUN}`);
    const rows = await rowsOf(page, '#external-accounts');
    const row = rows.find((r) => r.includes(`ext-${RUN}`));
    return (row.includes('…0001') && !row.includes('000123450001')) || row;
  });
  await shot('external-added');

  // Fund USD.
  await page.type('#fund-USD', '250000');
  await page.click('form.fund[data-currency=USD] button[data-action=fund]');
  await page.waitForFunction(() => /^250000 USD/.test(document.querySelector('[data-balance=USD]')?.textContent || ''), { timeout: T });

  // Transfer-out: more than the balance (409), then 1500.
  await step('transfer-out form: from the USD account to the new external account', async () => {
    await page.waitForSelector('#transfer-out', { timeout: T });
    const usd = await page.$$eval('#t-source option', (os) => os.find((o) => o.textContent.startsWith('USD'))?.value);
    await page.select('#t-source', usd);
    const dst = await page.$$eval('#t-destination option', (os) => os.map((o) => o.textContent));
    return (dst.length === 1 && dst[0].includes(`ext-${RUN}`)) || dst.join(';');
  });
  await page.type('#t-amount', '999999999');
  expectErrors(true);
  await page.click('#transfer-out button[type=submit]');
  await step('transfer-out: too much shows 409 INSUFFICIENT_FUNDS with available and requested', async () => {
    const code = await errorCode(page, '#transfer-out ~ div');
    const avail = await textOf(page, '#transfer-out ~ div li[data-detail=available]');
    const req = await textOf(page, '#transfer-out ~ div li[data-detail=requested]');
    return (code === 'INSUFFICIENT_FUNDS' && /250000 USD/.test(avail) && /999999999 USD/.test(req)) || `${code} ${avail} ${req}`;
  });
  await shot('transfer-out-409');
  expectErrors(false);
  await fill(page, '#t-amount', '1500');
  await page.click('#transfer-out button[type=submit]');
  let txId = '';
  await step('transfer-out: sent, the transaction\'s page shows 1500 USD OUTGOING', async () => {
    await page.waitForFunction(() => location.hash.startsWith('#/transactions/') && document.querySelector('dd[data-field=sentAmount]'), { timeout: T });
    txId = decodeURIComponent(page.url().split('#/transactions/')[1]);
    const sent = await textOf(page, 'dd[data-field=sentAmount]');
    const type = await textOf(page, 'dd[data-field=type]');
    return (/^1500 USD/.test(sent) && type === 'OUTGOING') || `${sent} ${type}`;
  });
  await shot('transfer-out-sent');

  // The transaction list: by platformCustomerId, by dates, a bad filter.
  await go(page, '#/transactions');
  await page.waitForSelector('#tx-filters', { timeout: T });
  const listed = () => page.$$eval('main tbody a', (as) => as.map((a) => a.textContent));
  const submitFilters = async () => {
    await page.click('#tx-filters button[type=submit]');
    await page.waitForNetworkIdle({ idleTime: 200, timeout: T });
  };
  await page.type('#f-platformCustomerId', pcid);
  await submitFilters();
  await step('transactions: filtered by platformCustomerId, only its transfer-out', async () => {
    const l = await listed();
    return (l.length === 1 && l[0] === txId) || l.join(';');
  });
  const today = new Date().toISOString().slice(0, 10);
  await setValue(page, '#f-startDate', today);
  await setValue(page, '#f-endDate', today);
  await submitFilters();
  await step('transactions: today\'s range shows it', async () => {
    const l = await listed();
    return (l.length === 1 && l[0] === txId) || l.join(';');
  });
  await shot('transactions-today');
  await setValue(page, '#f-startDate', '2020-01-01');
  await setValue(page, '#f-endDate', '2020-01-31');
  await submitFilters();
  await step('transactions: a range in the past shows "Nothing here."', async () => {
    const t = await textOf(page, 'main tbody');
    return t === 'Nothing here.' || t;
  });
  await shot('transactions-past');
  await setValue(page, '#f-startDate', '');
  await setValue(page, '#f-endDate', '');
  await fill(page, '#f-customerId', 'nope');
  expectErrors(true);
  await submitFilters();
  await step('transactions: a malformed customerId, the 400 next to the filter', async () => {
    const sel = '#tx-filters .field-error[data-error-for=customerId]';
    await page.waitForSelector(sel, { timeout: T });
    const code = await errorCode(page, '#tx-filters ~ div');
    return (code === 'INVALID_REQUEST' && /Customer:/.test(await textOf(page, sel))) || code;
  });
  await shot('transactions-bad-filter');
  expectErrors(false);
  await page.setViewport({ width: 360, height: 740 });
  await step('360 px wide: the transaction filters and their error need no sideways scrolling', async () => {
    const w = await page.evaluate(() => document.documentElement.scrollWidth);
    return w <= 360 || `scrollWidth ${w}`;
  });
  await shot('transactions-360px');
  await page.setViewport({ width: 1100, height: 800 });
  await go(page, `#/transactions?customerId=${enc(customerId)}`);
  await step('transactions: ?customerId= in the hash fills the filter', async () => {
    await page.waitForSelector('main tbody a', { timeout: T });
    const v = await page.$eval('#f-customerId', (el) => el.value);
    const l = await listed();
    return (v === customerId && l.length === 1 && l[0] === txId) || `${v} ${l.join(';')}`;
  });

  // Delete an external account: the first click only asks.
  const spare = api('POST', '/customers/external-accounts', {
    customerId, currency: 'EUR', platformAccountId: `spare-${RUN}`,
    accountInfo: { accountType: 'SAVINGS', accountCategory: 'BUSINESS', bankName: 'Spare Bank', accountNumber: 'DE0012345678', routingNumber: 'SPAREXXX' },
  });
  await go(page, custPage);
  await page.waitForSelector('#external-accounts [data-action=delete-external]', { timeout: T });
  const spareRow = `xpath/.//div[@id="external-accounts"]//tr[td[text()="spare-${RUN}"]]`;
  const [row] = await page.$$(spareRow);
  await (await row.$('[data-action=delete-external]')).click();
  await step('delete external account: a first click asks, nothing deleted', async () => {
    await page.waitForSelector('#external-accounts [data-action=confirm]', { timeout: T });
    const l = api('GET', `/customers/external-accounts?customerId=${enc(customerId)}`);
    return (l.data.some((a) => a.id === spare.id) && dialogs.length === 0) || JSON.stringify(l);
  });
  await shot('external-confirm');
  await page.click('#external-accounts [data-action=confirm]');
  await step('delete external account: confirmed, gone from the table, the other kept', async () => {
    await page.waitForFunction((p) => ![...document.querySelectorAll('#external-accounts tbody tr')].some((tr) => tr.textContent.includes(p)),
      { timeout: T }, `spare-${RUN}`);
    const rows = await rowsOf(page, '#external-accounts');
    return (rows.length === 1 && rows[0].includes(`ext-${RUN}`)) || rows.join(';');
  });

  // 360 px: the manage page of the customer, all its forms.
  await page.setViewport({ width: 360, height: 740 });
  await step('360 px wide: the customer page needs no sideways scrolling', async () => {
    const w = await page.evaluate(() => document.documentElement.scrollWidth);
    return w <= 360 || `scrollWidth ${w}`;
  });
  await shot('customer-360px');
  await page.setViewport({ width: 1100, height: 800 });

  // Delete: refused with a balance, done without one.
  await page.click('[data-action=delete-customer]');
  await page.waitForSelector('#delete-customer [data-action=confirm]', { timeout: T });
  expectErrors(true);
  await page.click('#delete-customer [data-action=confirm]');
  await step('delete customer with a balance: 409 CUSTOMER_HAS_BALANCE, still there', async () => {
    const code = await errorCode(page, '#delete-customer');
    const live = api('GET', `/customers/${enc(customerId)}`);
    return (code === 'CUSTOMER_HAS_BALANCE' && live.id === customerId) || `${code} ${JSON.stringify(live)}`;
  });
  await shot('delete-409');
  expectErrors(false);
  await go(page, `#/customers/${enc(other.id)}`);
  await page.waitForSelector('[data-action=delete-customer]', { timeout: T });
  await page.click('[data-action=delete-customer]');
  await page.click('#delete-customer [data-action=confirm]');
  await step('delete customer without a balance: back to the list, gone from it', async () => {
    await page.waitForFunction(() => location.hash === '#/customers' && document.querySelector('main tbody'), { timeout: T });
    await page.waitForNetworkIdle({ idleTime: 200, timeout: T });
    const names = await page.$$eval('main tbody a', (as) => as.map((a) => a.textContent));
    return (!names.includes(other.fullName) && names.includes(renamed)) || names.join(';');
  });
  await shot('deleted');

  // The customer list's filters, as GET /customers names them, and paging.
  await page.select('#f-customerType', 'ENTITY');
  await page.select('#f-kycStatus', 'PENDING');
  await page.type('#f-platformCustomerId', pcid);
  await page.click('#customer-filters button[type=submit]');
  await step('customer list: customerType, kycStatus and platformCustomerId filters find it alone', async () => {
    await page.waitForNetworkIdle({ idleTime: 200, timeout: T });
    const names = await page.$$eval('main tbody a', (as) => as.map((a) => a.textContent));
    return (names.length === 1 && names[0] === renamed) || names.join(';');
  });
  await page.select('#f-kycStatus', 'APPROVED');
  await page.click('#customer-filters button[type=submit]');
  await step('customer list: kycStatus APPROVED does not', async () => {
    await page.waitForNetworkIdle({ idleTime: 200, timeout: T });
    return (await textOf(page, 'main tbody')) === 'Nothing here.' || 'listed';
  });
  await fill(page, '#f-platformCustomerId', '');
  await page.select('#f-kycStatus', '');
  await page.select('#f-customerType', '');
  await page.click('#customer-filters button[type=submit]');
  await page.waitForNetworkIdle({ idleTime: 200, timeout: T });
  await step('customer list: Next and Previous turn pages of 20', async () => {
    const first = await page.$$eval('main tbody a', (as) => as.map((a) => a.href));
    await page.click('xpath/.//button[text()="Next"]');
    await page.waitForFunction(() => /^21–/.test(document.querySelector('.pager .muted')?.textContent || ''), { timeout: T });
    const second = await page.$$eval('main tbody a', (as) => as.map((a) => a.href));
    await page.click('xpath/.//button[text()="Previous"]');
    await page.waitForFunction(() => /^1–20 /.test(document.querySelector('.pager .muted')?.textContent || ''), { timeout: T });
    return (first.length === 20 && second.length >= 1 && !second.some((u) => first.includes(u))) || `${first.length} ${second.length}`;
  });
  await shot('customers-page-2');

  // The view token: none of the forms or buttons.
  await page.click('#signout');
  await signIn(VIEW_ID, VIEW_SECRET);
  await page.waitForSelector('#nav:not([hidden])', { timeout: T });
  await go(page, custPage);
  await step('view token: the customer page without edit, delete, create or transfer controls', async () => {
    await page.waitForSelector('#ppv-address', { timeout: T });
    const n = await page.$$eval('main button, main form, [data-action]', (l) => l.length);
    return n === 0 || `${n} controls`;
  });
  await shot('view-customer');
  await go(page, '#/customers');
  await step('view token: the customer list without the create form', async () => {
    await page.waitForSelector('#customer-filters', { timeout: T });
    return (await page.$('#create-customer')) === null || 'create form shown';
  });
}, import.meta.url);
