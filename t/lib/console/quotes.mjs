// t/lib/console/quotes.mjs - the Quotes pages in chromium, for
// t/32-console.t.  Set up through the API: a sender with a funded USD
// account and a receiver with a PPV address (same platform).  In the
// console: the indicative rate appears while typing and equals GET
// /exchange-rates'; a currency the platform lacks shows "no indicative
// rate" quietly; a USD->EUR quote to the PPV address is created and shown;
// the list filtered QUOTE_READY has it, EXPIRED and BLOCKED do not; its
// page executes it and its transaction is COMPLETED; an unknown PPV
// address (404 RECEIVER_NOT_FOUND) and an execution over the balance (409
// INSUFFICIENT_FUNDS) are shown next to their fields; 360 px wide; the view
// token sees no create form and no Execute.
import { VIEW_ID, VIEW_SECRET, ID, SECRET, RUN, T, api, step, textOf, go, fill, scenario } from './harness.mjs';

const FUNDED = 100000;

await scenario(async ({ page, expectErrors, shot, signIn }) => {
  // Set up: a funded sender, a receiver.
  const sender = api('POST', '/customers', { platformCustomerId: `q-sender-${RUN}`, customerType: 'INDIVIDUAL', fullName: `Quote Sender ${RUN}` });
  const receiver = api('POST', '/customers', { platformCustomerId: `q-receiver-${RUN}`, customerType: 'INDIVIDUAL', fullName: `Quote Receiver ${RUN}` });
  const usd = api('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(sender.id)}&currency=USD`).data[0];
  const funded = api('POST', `/sandbox/internal-accounts/${encodeURIComponent(usd.id)}/fund`, { amountMinor: FUNDED });
  await step('set up (API): a sender with a funded USD account, a receiver with a PPV address', () =>
    (funded.balance && funded.balance.amountMinor === String(FUNDED) && /@/.test(receiver.ppvAddress)) || JSON.stringify({ funded, receiver }));

  await go(page, '#/quotes');
  await signIn(ID, SECRET);
  await page.waitForSelector('#create-quote', { timeout: T });
  await step('quotes: every control of the create form is labelled', async () => {
    const bare = await page.$$eval('main input, main select', (l) => l.filter((c) => !c.labels || c.labels.length === 0).map((c) => c.id));
    return bare.length === 0 || `unlabelled: ${bare.join(',')}`;
  });
  await shot('quotes');

  // Typing the quote: the indicative rate follows.
  await page.select('#q-source', usd.id);
  await page.type('#q-ppvAddress', receiver.ppvAddress);
  await page.type('#q-currencyCode', 'EUR');
  await page.type('#q-lockedCurrencyAmount', '10000');
  const rates = api('GET', '/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR&sendingAmount=10000');
  const expected = rates.data[0];
  await step('indicative rate: appears while typing, equal to GET /exchange-rates (USD->EUR, 10000)', async () => {
    await page.waitForFunction(() => /10000 USD/.test(document.querySelector('#q-rate')?.textContent || '') &&
      document.querySelector('#q-rate [data-receiving]'), { timeout: T });
    const shown = await page.$eval('#q-rate [data-rate]', (el) => el.textContent);
    const recv = await textOf(page, '#q-rate [data-receiving]');
    return (shown === expected.exchangeRate && recv.startsWith(`${expected.receivingAmount.amountMinor} EUR`)) ||
      `shown ${shown} / ${recv}, API ${JSON.stringify(expected)}`;
  });
  await shot('indicative-rate');

  // A currency the platform does not have: quietly no rate, no page error.
  expectErrors(true); /* the browser logs the 400 itself */
  await fill(page, '#q-currencyCode', 'GBP');
  await step('indicative rate for GBP: "no indicative rate: ..." shown quietly, no error box', async () => {
    await page.waitForSelector('#q-rate [data-rate-error]', { timeout: T });
    const t = await textOf(page, '#q-rate');
    const boxes = await page.$$eval('main .error', (l) => l.length);
    return (/^no indicative rate: /.test(t) && boxes === 0) || `${t} (${boxes} error boxes)`;
  });
  await shot('no-indicative-rate');
  await fill(page, '#q-currencyCode', 'EUR');
  await page.waitForSelector('#q-rate [data-rate]', { timeout: T });
  expectErrors(false);

  // Create it.
  await page.click('#create-quote button[type=submit]');
  let quoteId = null;
  await step('create: the quote shown with its rate, amounts, fees, expiry and Execute', async () => {
    await page.waitForSelector('#new-quote', { timeout: T });
    quoteId = await page.$eval('#new-quote', (el) => el.dataset.quoteId);
    const f = async (k) => textOf(page, `#new-quote dd[data-field=${k}]`);
    const [rate, st, snd, rcv, fees, exp] = await Promise.all(['exchangeRate', 'status', 'sendingAmount', 'receivingAmount', 'feesTotal', 'expiresAt'].map(f));
    const exec = await page.$('#new-quote [data-action=execute]');
    const q = api('GET', `/quotes/${encodeURIComponent(quoteId)}`);
    return (rate === q.exchangeRate && rate === expected.exchangeRate && st === 'QUOTE_READY' && snd.startsWith('10000 USD') &&
      rcv.startsWith(`${q.receivingAmount.amountMinor} EUR`) && fees.startsWith(`${q.feesTotal.amountMinor} USD`) &&
      exp === q.expiresAt && exec !== null) || JSON.stringify({ rate, st, snd, rcv, fees, exp, exec: !!exec });
  });
  await shot('quote-created');

  // The list with the status filter.
  const listed = async (st) => {
    await page.select('#f-qstatus', st);
    await page.evaluate(() => document.querySelector('main .table-wrap')?.remove());
    await page.click('#quote-filter button[type=submit]');
    await page.waitForFunction((s) => {
      const rows = [...document.querySelectorAll('main table tbody tr')];
      return rows.length && rows.every((r) => r.querySelector('.status')?.textContent === s || /Nothing here/.test(r.textContent));
    }, { timeout: T }, st);
    return page.$$eval('main table td a', (as, id) => as.some((a) => a.textContent === id), quoteId);
  };
  await step('list: the quote under QUOTE_READY', async () => (await listed('QUOTE_READY')) || 'not listed');
  await shot('list-quote-ready');
  await step('list: not under EXPIRED', async () => !(await listed('EXPIRED')) || 'listed');
  await step('list: not under BLOCKED', async () => !(await listed('BLOCKED')) || 'listed');

  // Its page: execute.
  await go(page, `#/quotes/${encodeURIComponent(quoteId)}`);
  await step('quote page: every field, its transaction linked, Execute offered', async () => {
    await page.waitForSelector('[data-action=execute]', { timeout: T });
    const q = api('GET', `/quotes/${encodeURIComponent(quoteId)}`);
    const keys = await page.$$eval('main dd[data-field]', (l) => l.map((d) => d.dataset.field));
    const missing = Object.keys(q).filter((k) => !keys.includes(k));
    const href = await page.$eval('main dd[data-field=transactionId] a', (a) => a.getAttribute('href'));
    return (missing.length === 0 && href === `#/transactions/${encodeURIComponent(q.transactionId)}`) || `missing ${missing}, href ${href}`;
  });
  await shot('quote-page');
  await page.click('[data-action=execute]');
  await step('execute: COMPLETED shown, Execute no longer offered', async () => {
    await page.waitForSelector('#q-executed', { timeout: T });
    const t = await textOf(page, '#q-executed');
    const exec = await page.$('[data-action=execute]');
    const executedAt = await textOf(page, 'main dd[data-field=executedAt]');
    return (/COMPLETED/.test(t) && exec === null && executedAt !== '—') || `${t}, execute ${!!exec}, executedAt ${executedAt}`;
  });
  await shot('quote-executed');
  await page.click('#q-executed a');
  await step('execute: its transaction page shows COMPLETED with the quote\'s id', async () => {
    await page.waitForFunction(() => document.querySelector('p .status')?.textContent === 'COMPLETED', { timeout: T });
    const qid = await textOf(page, 'dd[data-field=quoteId]');
    return qid === quoteId || `quoteId ${qid}`;
  });
  await shot('quote-transaction');

  // Errors next to their fields.
  await go(page, '#/quotes');
  await page.waitForSelector('#create-quote', { timeout: T });
  await page.select('#q-source', usd.id);
  await page.type('#q-ppvAddress', `nobody-${RUN}@nowhere.invalid`);
  await page.type('#q-currencyCode', 'EUR');
  await page.type('#q-lockedCurrencyAmount', '1000');
  expectErrors(true);
  await page.click('#create-quote button[type=submit]');
  await step('unknown PPV address: 404 RECEIVER_NOT_FOUND next to the address field', async () => {
    await page.waitForSelector('#create-quote .field-error[data-error-for="destination.ppvAddress"]', { timeout: T });
    const code = await textOf(page, 'main .error .error-code');
    const inv = await page.$eval('#q-ppvAddress', (el) => el.getAttribute('aria-invalid'));
    return (code === 'RECEIVER_NOT_FOUND' && inv === 'true') || `${code}, aria-invalid ${inv}`;
  });
  await shot('receiver-not-found');
  const over = FUNDED * 5;
  await fill(page, '#q-ppvAddress', receiver.ppvAddress);
  await fill(page, '#q-lockedCurrencyAmount', String(over));
  await page.click('#create-quote button[type=submit]');
  let bigQuote = null;
  await step('over the balance: the quote is made (funds count at execution)', async () => {
    await page.waitForSelector('#new-quote [data-action=execute]', { timeout: T });
    bigQuote = await page.$eval('#new-quote', (el) => el.dataset.quoteId);
    const left = await page.$$eval('#create-quote .field-error', (l) => l.length);
    return left === 0 || `${left} field errors left`;
  });
  await page.click('#new-quote [data-action=execute]');
  await step('execute over the balance: 409 INSUFFICIENT_FUNDS, available next to the source account', async () => {
    await page.waitForSelector('#create-quote .field-error[data-error-for="source.accountId"]', { timeout: T });
    const code = await textOf(page, '#new-quote .error .error-code');
    const note = await textOf(page, '#create-quote .field-error[data-error-for="source.accountId"]');
    const requested = await textOf(page, '#new-quote .error li[data-detail=requested]');
    return (code === 'INSUFFICIENT_FUNDS' && /available/.test(note) && requested.includes(`${over} USD`)) || `${code}: ${note} / ${requested}`;
  });
  await shot('insufficient-funds');
  expectErrors(false);

  await page.setViewport({ width: 360, height: 740 });
  await step('360 px wide: the quotes page (form, quote, list) needs no sideways scrolling', async () => {
    const w = await page.evaluate(() => document.documentElement.scrollWidth);
    return w <= 360 || `scrollWidth ${w}`;
  });
  await shot('quotes-360px');
  await page.setViewport({ width: 1100, height: 800 });

  // The view token: no create form, no Execute (the big quote is still executable).
  await page.click('#signout');
  await go(page, '#/quotes');
  await signIn(VIEW_ID, VIEW_SECRET);
  await step('view token: the quote list without the create form', async () => {
    await page.waitForSelector('main table', { timeout: T });
    const form = await page.$('#create-quote');
    const listedHere = await page.$$eval('main table td a', (as, id) => as.some((a) => a.textContent === id), quoteId);
    return (form === null && listedHere) || `form ${!!form}, listed ${listedHere}`;
  });
  await shot('view-quotes');
  await go(page, `#/quotes/${encodeURIComponent(bigQuote)}`);
  await step('view token: an executable quote\'s page without Execute', async () => {
    await page.waitForSelector('main dd[data-field=status]', { timeout: T });
    const st = await textOf(page, 'main dd[data-field=status]');
    const n = await page.$$eval('main button', (l) => l.length);
    return (st === 'QUOTE_READY' && n === 0) || `status ${st}, ${n} buttons`;
  });
  await shot('view-quote');
}, import.meta.url);
