// t/lib/console/webhooks.mjs - the console's Webhooks page in chromium, for
// t/32-console.t: the endpoint's connectivity test (the receiver's answer
// shown as text; a refused connection's 400 and its reason), the signing
// key and its rotation (confirmed inline), the delivery log's filters
// (type, transaction id, dates; a 400 shown next to its field), and a view
// token offered neither the test nor the rotation.
import { ID, SECRET, VIEW_ID, VIEW_SECRET, RUN, T, WH_URL, api, step, textOf, go, fill, scenario, unlabelled } from './harness.mjs';

const REFUSED = 'http://127.0.0.1:9/hooks';

/* Events of a payout of the run's own (OUTGOING_PAYMENT.PENDING) and an incoming payment. */
function makeEvents() {
  const c = api('POST', '/customers', { platformCustomerId: `wh-${RUN}`, customerType: 'INDIVIDUAL', fullName: `Webhook ${RUN}` });
  const acct = api('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(c.id)}&currency=USD`).data[0];
  api('POST', `/sandbox/internal-accounts/${encodeURIComponent(acct.id)}/fund`, { amountMinor: 10000 });
  const ext = api('POST', '/customers/external-accounts', {
    customerId: c.id, currency: 'USD', platformAccountId: `wh-${RUN}`,
    accountInfo: { accountType: 'CHECKING', accountCategory: 'PERSONAL', bankName: 'First Bank', accountNumber: '000123456789', routingNumber: '021000021' },
  });
  const tx = api('POST', '/transfer-out', { source: { accountId: acct.id }, destination: { accountId: ext.id }, amount: { currencyCode: 'USD', amountMinor: '700' } });
  api('POST', '/sandbox/incoming-payments/simulate', { receiverCustomerId: c.id, amountMinor: 900, currencyCode: 'USD' });
  return tx.transactionId;
}

/* The delivery log's rows as [type, event id]. */
const rows = (page) => page.$$eval('#main table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));

await scenario(async ({ page, signIn, expectErrors, shot }) => {
  const txId = makeEvents();
  api('PATCH', '/config', { webhookEndpoint: WH_URL });
  await go(page, '#/webhooks');
  await signIn(ID, SECRET);
  await page.waitForSelector('[data-action=test]', { timeout: T });

  await step('webhooks page: every control labelled', async () => {
    const bare = await unlabelled(page);
    return bare.length === 0 || `unlabelled: ${bare.join(',')}`;
  });
  await step('endpoint: the configured URL is shown', async () =>
    (await textOf(page, '#endpoint-url')) === WH_URL || `shown ${await textOf(page, '#endpoint-url')}`);
  await page.click('[data-action=test]');
  await step('connectivity test: the endpoint\'s 201 and its body, as text', async () => {
    await page.waitForSelector('#test-body', { timeout: T });
    const st = await textOf(page, '#test-result dd[data-field=responseStatus]');
    const body = await textOf(page, '#test-body');
    const bold = await page.$$eval('#test-result b', (l) => l.length);
    return (st === '201' && body === 'received <b>it</b>' && bold === 0) || `status ${st}, body ${body}, <b> elements ${bold}`;
  });
  await shot('test-answered');

  api('PATCH', '/config', { webhookEndpoint: REFUSED });
  await go(page, '#/webhooks');
  await page.waitForSelector('[data-action=test]', { timeout: T });
  await step('endpoint: the new URL is shown', async () =>
    (await textOf(page, '#endpoint-url')) === REFUSED || `shown ${await textOf(page, '#endpoint-url')}`);
  expectErrors(true);
  await page.click('[data-action=test]');
  await step('connectivity test, connection refused: 400 WEBHOOK_DELIVERY_FAILED and its reason', async () => {
    await page.waitForSelector('#endpoint .error li[data-detail=reason]', { timeout: T });
    const code = await textOf(page, '#endpoint .error .error-code');
    const reason = await textOf(page, '#endpoint .error li[data-detail=reason]');
    return (code === 'WEBHOOK_DELIVERY_FAILED' && /connection refused/.test(reason)) || `${code}: ${reason}`;
  });
  expectErrors(false);
  await shot('test-refused');

  // The signing key and its rotation.
  const before = api('GET', '/webhooks/signing-key');
  await step('signing key: the current key id and PEM shown', async () => {
    const kid = await textOf(page, '#signing-key dd[data-field=keyId]');
    const pem = await textOf(page, '#public-key');
    return (kid === before.keyId && pem === before.publicKeyPem) || `shown ${kid}`;
  });
  await page.click('[data-action=rotate]');
  await page.waitForSelector('[data-action=confirm-rotate]', { timeout: T });
  await step('rotate: nothing happens before the confirmation', async () =>
    api('GET', '/webhooks/signing-key').keyId === before.keyId || 'the key changed before the confirmation');
  await shot('rotate-confirm');
  await page.click('[data-action=confirm-rotate]');
  await step('rotate: the new key shown, the previous one named, the API agrees', async () => {
    await page.waitForSelector('#signing-key dd[data-field=previousKeyId]', { timeout: T });
    const kid = await textOf(page, '#signing-key dd[data-field=keyId]');
    const prev = await textOf(page, '#signing-key dd[data-field=previousKeyId]');
    const now = api('GET', '/webhooks/signing-key');
    return (kid === now.keyId && kid !== before.keyId && prev === before.keyId) || `shown ${kid}, previous ${prev}, API ${now.keyId}`;
  });
  await shot('rotated');

  // The delivery log's filters.
  await page.select('#f-wtype', 'OUTGOING_PAYMENT.PENDING');
  await page.click('#delivery-filters button[type=submit]');
  await step('type filter: only OUTGOING_PAYMENT.PENDING events, the run\'s payout among them', async () => {
    await page.waitForFunction(() => {
      const cells = [...document.querySelectorAll('#main table tbody tr td:nth-child(2)')];
      return cells.length > 0 && cells.every((td) => td.textContent === 'OUTGOING_PAYMENT.PENDING');
    }, { timeout: T });
    const types = (await rows(page)).map((r) => r[1]);
    const mine = api('GET', `/webhooks/deliveries?transactionId=${encodeURIComponent(txId)}&type=OUTGOING_PAYMENT.PENDING`).data[0];
    const ids = (await rows(page)).map((r) => r[0]);
    return (types.every((t) => t === 'OUTGOING_PAYMENT.PENDING') && mine && ids.includes(mine.id)) || `types ${types.join(',')}`;
  });
  await fill(page, '#f-wtransactionId', txId);
  await page.select('#f-wtype', '');
  await page.click('#delivery-filters button[type=submit]');
  await step('transaction filter: the payout\'s events only', async () => {
    await page.waitForFunction((n) => document.querySelectorAll('#main table tbody tr').length === n, { timeout: T },
      api('GET', `/webhooks/deliveries?transactionId=${encodeURIComponent(txId)}`).data.length);
    const types = (await rows(page)).map((r) => r[1]);
    return (types.length > 0 && types.every((t) => t.startsWith('OUTGOING_PAYMENT.'))) || `types ${types.join(',')}`;
  });
  await fill(page, '#f-wtransactionId', '');
  await page.type('#f-w-startDate', '01012020');
  await page.type('#f-w-endDate', '12312020');
  await page.click('#delivery-filters button[type=submit]');
  await step('date filter, 2020: nothing', async () => {
    await page.waitForFunction(() => document.querySelector('#main table tbody td')?.textContent === 'Nothing here.', { timeout: T });
    return true;
  });
  await shot('filtered-2020');
  await fill(page, '#f-wtransactionId', 'x'.repeat(129));
  expectErrors(true);
  await page.click('#delivery-filters button[type=submit]');
  await step('a transaction id over 128 bytes: the 400 shown next to the field', async () => {
    await page.waitForSelector('.field-error[data-error-for=transactionId]', { timeout: T });
    const invalid = await page.$eval('#f-wtransactionId', (el) => el.getAttribute('aria-invalid'));
    const code = await textOf(page, '#delivery-filters + div .error .error-code');
    return (code === 'INVALID_REQUEST' && invalid === 'true') || `${code}, aria-invalid ${invalid}`;
  });
  expectErrors(false);
  await shot('filter-error');

  // The view token: the key, no test, no rotation.
  await page.click('#signout');
  await signIn(VIEW_ID, VIEW_SECRET);
  await page.waitForSelector('#nav:not([hidden])', { timeout: T });
  await go(page, '#/webhooks');
  await step('view token: the key and the log, no test, rotation or retry', async () => {
    await page.waitForSelector('#public-key', { timeout: T });
    await page.waitForSelector('#main table', { timeout: T });
    const n = await page.$$eval('[data-action=test], [data-action=rotate], [data-action=retry]', (l) => l.length);
    return n === 0 || `${n} action buttons`;
  });
  await shot('view-webhooks');
}, import.meta.url);
