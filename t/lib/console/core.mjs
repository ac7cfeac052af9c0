// t/lib/console/core.mjs - the console's main path in chromium, for
// t/32-console.t: the page's headers; sign in; create a customer and fund
// it; a transfer-out held PENDING (an account ending in 003) completed with
// the button, and its event's payload; a retry; a review case approved
// after the first try shows the 400's missing fields; a hostile name;
// where the credentials are; sign out; the view token sees no action; 360
// px wide; a wrong secret.
import { BASE, ID, SECRET, VIEW_ID, VIEW_SECRET, RUN, T, api, step, textOf, signIn, scenario, unlabelled } from './harness.mjs';

const HOSTILE = '<img src=x onerror=alert(1)>';

await scenario(async ({ page, dialogs, urls, pageUrls, expectErrors, shot }) => {
  // The page and its headers.
  const res = await page.goto(`${BASE}/console/`, { waitUntil: 'networkidle0', timeout: T });
  const hdr = res.headers();
  await step('console page: 200', () => res.status() === 200 || `status ${res.status()}`);
  await step('console page: Content-Security-Policy default-src \'self\', frame-ancestors \'none\'', () => {
    const csp = hdr['content-security-policy'] || '';
    return (/default-src 'self'/.test(csp) && /frame-ancestors 'none'/.test(csp)) || `got "${csp}"`;
  });
  await step('console page: Referrer-Policy no-referrer', () => hdr['referrer-policy'] === 'no-referrer' || `got ${hdr['referrer-policy']}`);
  await step('console page: X-Content-Type-Options nosniff', () => hdr['x-content-type-options'] === 'nosniff' || `got ${hdr['x-content-type-options']}`);
  await page.waitForSelector('#signin', { visible: true, timeout: T });
  await shot('signin');

  // Sign in with the manage token.
  // Sign in with the keyboard alone: the form has the focus, Tab to the
  // secret, Enter submits.
  await step('sign in: the client id field has the focus', async () =>
    (await page.evaluate(() => document.activeElement?.id)) === 'clientId' || 'focus elsewhere');
  await page.keyboard.type(ID);
  await page.keyboard.press('Tab');
  await page.keyboard.type(SECRET);
  await page.keyboard.press('Enter');
  await step('sign in: the navigation and the token\'s name appear', async () => {
    await page.waitForSelector('#nav:not([hidden])', { timeout: T });
    await page.waitForSelector('#create-customer', { timeout: T });
    const who = await textOf(page, '#who');
    return /manage/.test(who) || `who: ${who}`;
  });
  await step('customers page: every control labelled', async () => {
    const bare = await unlabelled(page);
    return bare.length === 0 || `unlabelled: ${bare.join(',')}`;
  });
  await shot('customers');

  // Create a customer with the form.
  const name = `Console Ada ${RUN}`;
  await page.type('#c-fullName', name);
  await page.type('#c-platformCustomerId', `console-${RUN}`);
  await page.click('#create-customer button[type=submit]');
  let customerId = null;
  await step('create customer: its page shows its name', async () => {
    await page.waitForFunction((n) => document.querySelector('h1')?.textContent === n, { timeout: T }, name);
    customerId = decodeURIComponent(page.url().split('#/customers/')[1] || '');
    return /^Customer:/.test(customerId) || `url ${page.url()}`;
  });
  await step('customer page: every control labelled', async () => {
    const bare = await unlabelled(page);
    return bare.length === 0 || `unlabelled: ${bare.join(',')}`;
  });
  await shot('customer');

  // Fund its USD account.
  await page.type('#fund-USD', '250000');
  await page.click('form.fund[data-currency=USD] button[data-action=fund]');
  await step('fund: the USD balance shows 250000', async () => {
    await page.waitForFunction(() => /^250000 USD/.test(document.querySelector('[data-balance=USD]')?.textContent || ''), { timeout: T });
    return true;
  });
  await shot('funded');

  // A transfer-out to an account ending in 003 (held PENDING), sent with
  // the customer page's form (the account itself made through the API).
  const ext = api('POST', '/customers/external-accounts', {
    customerId, currency: 'USD', platformAccountId: `hold-${RUN}`,
    accountInfo: { accountType: 'CHECKING', accountCategory: 'PERSONAL', bankName: 'First Bank', accountNumber: '000123450003', routingNumber: '021000021' },
  });
  await page.reload({ waitUntil: 'networkidle0', timeout: T });
  await page.waitForSelector('#transfer-out', { timeout: T });
  const usd = await page.$$eval('#t-source option', (os) => os.find((o) => o.textContent.startsWith('USD'))?.value);
  await page.select('#t-source', usd);
  await page.select('#t-destination', ext.id);
  await page.type('#t-amount', '2000');
  await page.click('#transfer-out button[type=submit]');
  let txId = '';
  await step('transfer-out to ...0003 made with the form: its transaction\'s page', async () => {
    await page.waitForFunction(() => location.hash.startsWith('#/transactions/') && document.querySelector('dd[data-field=destination]'), { timeout: T });
    txId = decodeURIComponent(page.url().split('#/transactions/')[1]);
    const dest = await textOf(page, 'dd[data-field=destination]');
    return (/^Transaction:/.test(txId) && dest.includes(ext.id)) || `${txId} ${dest}`;
  });

  await step('transaction page: PENDING, complete and fail offered, return and expire not', async () => {
    await page.waitForSelector('[data-helper=complete]', { timeout: T });
    const helpers = await page.$$eval('[data-helper]', (bs) => bs.map((b) => b.dataset.helper).join(','));
    const st = await textOf(page, 'p .status');
    return (st === 'PENDING' && helpers === 'complete,fail') || `status ${st}, helpers ${helpers}`;
  });
  await step('transaction page: every control labelled', async () => {
    const bare = await unlabelled(page);
    return bare.length === 0 || `unlabelled: ${bare.join(',')}`;
  });
  await shot('transaction-pending');
  await page.click('[data-helper=complete]');
  await step('complete: the transaction shows COMPLETED, return offered', async () => {
    await page.waitForFunction(() => document.querySelector('p .status')?.textContent === 'COMPLETED', { timeout: T });
    const helpers = await page.$$eval('[data-helper]', (bs) => bs.map((b) => b.dataset.helper).join(','));
    const settled = await textOf(page, 'dd[data-field=settledAt]');
    return (helpers === 'return' && settled !== '—') || `helpers ${helpers}, settledAt ${settled}`;
  });
  await shot('transaction-completed');

  // Its COMPLETED event's payload.
  await step('event: the OUTGOING_PAYMENT.COMPLETED payload carries the transaction, COMPLETED', async () => {
    const link = await page.waitForSelector('xpath/.//a[text()="OUTGOING_PAYMENT.COMPLETED"]', { timeout: T });
    await link.click();
    await page.waitForSelector('#payload', { timeout: T });
    const ev = JSON.parse(await textOf(page, '#payload'));
    return (ev.type === 'OUTGOING_PAYMENT.COMPLETED' && ev.data.status === 'COMPLETED' && ev.data.transactionId === txId) ||
      JSON.stringify(ev).slice(0, 300);
  });
  await shot('event-payload');

  // Retry that delivery (the platform's endpoint refuses connections).
  await page.click('[data-action=retry]');
  await step('retry: the delivery is PENDING again', async () => {
    await page.waitForFunction(() => document.querySelector('dd[data-field=status]')?.textContent === 'PENDING', { timeout: T });
    return true;
  });
  await shot('event-retried');

  // A review case that needs counterparty fields: a first approval shows
  // the 400's missing fields, the second (with them) completes it.
  const sim = api('POST', '/sandbox/incoming-payments/simulate', {
    receiverCustomerId: customerId, scenario: 'counterparty_info_incomplete', amountMinor: 25000, currencyCode: 'USD',
  });
  await page.goto(`${BASE}/console/#/transactions/${encodeURIComponent(sim.transactionId)}`, { waitUntil: 'networkidle0', timeout: T });
  await page.waitForSelector('[data-action=approve]', { timeout: T });
  expectErrors(true); /* the browser logs the 400 itself as a failed load */
  await page.click('[data-action=approve]');
  await step('approve without the fields: INVALID_REQUEST with missingRequiredFields shown', async () => {
    await page.waitForSelector('#main .error li[data-detail=missingRequiredFields]', { timeout: T });
    const code = await textOf(page, '#main .error .error-code');
    const missing = await textOf(page, '#main .error li[data-detail=missingRequiredFields]');
    return (code === 'INVALID_REQUEST' && /senderFullLegalName/.test(missing) && /purposeOfPayment/.test(missing)) || `${code}: ${missing}`;
  });
  await shot('review-missing-fields');
  expectErrors(false);
  await page.type('#r-senderFullLegalName', 'Carlos Mendes');
  await page.type('#r-senderCountryCode', 'BR');
  await page.type('#r-senderDateOfBirthOrRegistrationId', '1980-04-02');
  await page.type('#r-purposeOfPayment', 'family support');
  await page.click('[data-action=approve]');
  await step('approve with the fields: COMPLETED', async () => {
    await page.waitForFunction(() => document.querySelector('p .status')?.textContent === 'COMPLETED', { timeout: T });
    return true;
  });
  await shot('review-approved');

  // A hostile name stays text.
  await page.goto(`${BASE}/console/#/customers`, { waitUntil: 'networkidle0', timeout: T });
  await page.waitForSelector('#create-customer', { timeout: T });
  await page.type('#c-fullName', HOSTILE);
  await page.type('#c-platformCustomerId', `console-hostile-${RUN}`);
  await page.click('#create-customer button[type=submit]');
  await step('hostile name: shown as text, no element, no dialog', async () => {
    await page.waitForFunction((n) => document.querySelector('h1')?.textContent === n, { timeout: T }, HOSTILE);
    const imgs = await page.$$eval('main img', (l) => l.length);
    await new Promise((r) => setTimeout(r, 300));
    return (imgs === 0 && dialogs.length === 0) || `imgs ${imgs}, dialogs ${dialogs.join(';')}`;
  });
  await page.goto(`${BASE}/console/#/customers`, { waitUntil: 'networkidle0', timeout: T });
  await step('hostile name: text in the customer list too', async () => {
    await page.waitForSelector('main table', { timeout: T });
    const found = await page.$$eval('main td a', (as, n) => as.some((a) => a.textContent === n), HOSTILE);
    const imgs = await page.$$eval('main img', (l) => l.length);
    return (found && imgs === 0 && dialogs.length === 0) || `found ${found}, imgs ${imgs}`;
  });
  await shot('hostile-name');

  // Where the credentials are (and are not).
  await step('credentials: in sessionStorage only (no URL, localStorage or cookie)', async () => {
    const store = await page.evaluate(() => ({
      local: JSON.stringify(Object.assign({}, localStorage)),
      session: JSON.stringify(Object.assign({}, sessionStorage)),
      cookie: document.cookie,
    }));
    const cookies = await page.cookies();
    const inCookies = JSON.stringify(cookies);
    // The secret in no URL at all; the clientId in no page URL, and in a
    // request URL only as the tokenId of GET /tokens/{tokenId}, where the
    // console reads its own permissions.
    const all = [...urls, ...pageUrls, page.url()];
    const badUrl = all.find((u) => u.includes(SECRET) || u.includes(encodeURIComponent(SECRET))) ||
      [...pageUrls, page.url()].find((u) => u.includes(ID)) ||
      urls.find((u) => u.includes(ID) && u !== `${BASE}/tokens/${ID}`);
    if (store.local.includes(SECRET) || store.local.includes(ID)) return 'in localStorage';
    if (store.cookie.includes(SECRET) || inCookies.includes(SECRET) || inCookies.includes(ID)) return 'in a cookie';
    if (badUrl) return `in a URL: ${badUrl}`;
    return store.session.includes(SECRET) || 'not in sessionStorage either (sign-in lost?)';
  });

  // Sign out forgets them.
  await page.click('#signout');
  await step('sign out: the sign-in form, sessionStorage empty', async () => {
    await page.waitForSelector('#signin', { visible: true, timeout: T });
    const n = await page.evaluate(() => sessionStorage.length);
    return n === 0 || `sessionStorage has ${n} items`;
  });

  // The view token: everything readable, no action.
  await signIn(page, VIEW_ID, VIEW_SECRET);
  await page.waitForSelector('#nav:not([hidden])', { timeout: T });
  await page.goto(`${BASE}/console/#/transactions/${encodeURIComponent(txId)}`, { waitUntil: 'networkidle0', timeout: T });
  await step('view token: the transaction without helper buttons', async () => {
    await page.waitForFunction(() => document.querySelector('p .status')?.textContent === 'COMPLETED', { timeout: T });
    const n = await page.$$eval('main button', (l) => l.length);
    return n === 0 || `${n} buttons`;
  });
  await shot('view-transaction');
  await page.setViewport({ width: 360, height: 740 });
  await step('360 px wide: the transaction page needs no sideways scrolling', async () => {
    const w = await page.evaluate(() => document.documentElement.scrollWidth);
    return w <= 360 || `scrollWidth ${w}`;
  });
  await shot('view-transaction-360px');
  await page.setViewport({ width: 1100, height: 800 });
  await page.goto(`${BASE}/console/#/customers/${encodeURIComponent(customerId)}`, { waitUntil: 'networkidle0', timeout: T });
  await step('view token: the customer without fund buttons', async () => {
    await page.waitForSelector('[data-balance=USD]', { timeout: T });
    const n = await page.$$eval('main button, main form.fund', (l) => l.length);
    return n === 0 || `${n} buttons or forms`;
  });
  await page.goto(`${BASE}/console/#/customers`, { waitUntil: 'networkidle0', timeout: T });
  await step('view token: the customer list without the create form', async () => {
    await page.waitForSelector('main table', { timeout: T });
    return (await page.$('#create-customer')) === null || 'create form shown';
  });
  await page.goto(`${BASE}/console/#/webhooks`, { waitUntil: 'networkidle0', timeout: T });
  await step('view token: the delivery log without retry buttons', async () => {
    await page.waitForSelector('main table', { timeout: T });
    const n = await page.$$eval('main [data-action=retry]', (l) => l.length);
    return n === 0 || `${n} retry buttons`;
  });
  await shot('view-webhooks');

  // A wrong secret: the form again with the envelope's error, no dialog.
  await page.click('#signout');
  expectErrors(true); /* the 401 itself is logged by the browser as a failed load */
  await signIn(page, ID, 'wrong-secret-wrong-secret-wrong-secret-wro');
  await step('wrong secret: 401 UNAUTHORIZED shown on the sign-in form', async () => {
    await page.waitForSelector('#main .error .error-code', { timeout: T });
    const code = await textOf(page, '#main .error .error-code');
    const form = await page.$('#signin');
    return (code === 'UNAUTHORIZED' && form !== null && dialogs.length === 0) || `code ${code}`;
  });
  await shot('wrong-secret');
}, import.meta.url);
