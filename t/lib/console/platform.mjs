// t/lib/console/platform.mjs - the Platform page in chromium, for
// t/32-console.t: sign in (manage); the configuration shown; a webhook
// endpoint set and read back (page and GET /config), an ftp:// one refused
// next to its field; the fee policy changed, 10001 bps refused next to its
// field; a currency's maxAmount and counterparty field edited, a currency
// added and removed, a negative minAmount refused next to its field; the
// execution profile changed; 360 px wide; the view token sees the values
// and no form.  Everything it changed is put back as it was found (the
// platform is shared by the run's scenarios).
import { ID, SECRET, VIEW_ID, VIEW_SECRET, RUN, T, api, step, textOf, go, fill, scenario } from './harness.mjs';

const sameList = (a, b) => JSON.stringify(a) === JSON.stringify(b);

await scenario(async ({ page, expectErrors, shot, signIn }) => {
  const orig = api('GET', '/config');
  const origProfile = api('GET', '/sandbox/lightning-execution-profile');
  const usd = orig.supportedCurrencies.find((c) => c.currencyCode === 'USD');
  const eurAt = orig.supportedCurrencies.findIndex((c) => c.currencyCode === 'EUR');
  const hook = `https://hooks.example.test/${RUN}`;
  const dd = (sel, k) => page.$eval(`${sel} dd[data-field=${k}]`, (el) => el.textContent);
  try {
    await go(page, '#/platform');
    await signIn(ID, SECRET);
    await step('platform: the configuration, fee policy, currencies and execution profile shown', async () => {
      await page.waitForSelector('#edit-webhook', { timeout: T });
      const ppv = await dd('main', 'ppvDomain');
      const max = await textOf(page, '[data-max=USD]');
      const spread = await dd('#execution-profile', 'btcFiatSpreadBps');
      const forms = await page.$$eval('main form', (l) => l.map((f) => f.id).join(','));
      return (ppv === orig.ppvDomain && max === String(usd.maxAmount) && spread === String(origProfile.btcFiatSpreadBps) &&
        forms === 'edit-webhook,edit-fees,edit-currencies,edit-profile') || `ppv ${ppv}, max ${max}, spread ${spread}, forms ${forms}`;
    });
    await shot('platform');

    // Every control has a label.
    await step('platform: every control is labelled', async () => {
      const bare = await page.$$eval('main input, main select', (l) => l.filter((c) => !c.labels || c.labels.length === 0).map((c) => c.id));
      return bare.length === 0 || `unlabelled: ${bare.join(',')}`;
    });

    // The webhook endpoint: set, read back.
    await fill(page, '#p-webhookEndpoint', hook);
    await page.click('#edit-webhook button[type=submit]');
    await step('webhook endpoint: set, shown and read back by GET /config', async () => {
      await page.waitForFunction((u) => document.querySelector('main dd[data-field=webhookEndpoint]')?.textContent === u, { timeout: T }, hook);
      const cfg = api('GET', '/config');
      const notice = await textOf(page, '#platform-notice');
      return (cfg.webhookEndpoint === hook && /saved/.test(notice)) || `GET /config: ${cfg.webhookEndpoint}, notice ${notice}`;
    });
    await shot('webhook-set');

    // An ftp:// endpoint: the 400 next to the field.
    expectErrors(true); /* the browser logs the 400 itself */
    await fill(page, '#p-webhookEndpoint', 'ftp://x');
    await page.click('#edit-webhook button[type=submit]');
    await step('webhook endpoint ftp://x: INVALID_REQUEST next to the endpoint field', async () => {
      await page.waitForSelector('#edit-webhook .field-error[data-error-for=webhookEndpoint]', { timeout: T });
      const msg = await textOf(page, '#edit-webhook .field-error[data-error-for=webhookEndpoint]');
      const code = await textOf(page, 'main .error .error-code');
      const inv = await page.$eval('#p-webhookEndpoint', (el) => el.getAttribute('aria-invalid'));
      return (code === 'INVALID_REQUEST' && /http/.test(msg) && inv === 'true') || `${code}: ${msg} (aria-invalid ${inv})`;
    });
    await shot('webhook-invalid');
    expectErrors(false);
    await step('webhook endpoint: unchanged by the refused one', () => api('GET', '/config').webhookEndpoint === hook || 'changed');

    // The fee policy.
    await fill(page, '#p-senderServiceFeeBps', '25');
    await fill(page, '#p-receiverServiceFeeBps', '15');
    await page.click('#edit-fees button[type=submit]');
    await step('fee policy: 25 and 15 bps shown and read back', async () => {
      await page.waitForFunction(() => document.querySelector('main dd[data-field=senderServiceFeeBps]')?.textContent === '25', { timeout: T });
      const r = await dd('main', 'receiverServiceFeeBps');
      const p = api('GET', '/config').quoteFeePolicy;
      return (r === '15' && p.senderServiceFeeBps === 25 && p.receiverServiceFeeBps === 15) || `shown ${r}, API ${JSON.stringify(p)}`;
    });
    await shot('fees-set');
    expectErrors(true);
    await fill(page, '#p-senderServiceFeeBps', '10001');
    await page.click('#edit-fees button[type=submit]');
    await step('fee policy 10001 bps: the 400 next to the sender fee field', async () => {
      const sel = '#edit-fees .field-error[data-error-for="quoteFeePolicy.senderServiceFeeBps"]';
      await page.waitForSelector(sel, { timeout: T });
      const msg = await textOf(page, sel);
      const errId = await page.$eval(sel, (el) => el.id);
      const describedBy = await page.$eval('#p-senderServiceFeeBps', (el) => el.getAttribute('aria-describedby'));
      return (/10000/.test(msg) && describedBy === errId) || `${msg}: the field is described by ${describedBy}, the error is ${errId}`;
    });
    await shot('fees-invalid');
    expectErrors(false);

    // A currency's maxAmount and counterparty fields.
    const usdRow = 'fieldset.currency[data-currency=USD]';
    await fill(page, `${usdRow} input[data-field=maxAmount]`, '5000000');
    await page.select(`${usdRow} select[data-profile=BIRTH_DATE]`, 'optional');
    await page.click('#edit-currencies button[type=submit]');
    await step('currencies: USD maxAmount 5000000 and BIRTH_DATE optional, shown and read back', async () => {
      await page.waitForFunction(() => document.querySelector('[data-max=USD]')?.textContent === '5000000', { timeout: T });
      const c = api('GET', '/config').supportedCurrencies.find((x) => x.currencyCode === 'USD');
      const bd = c.requiredCounterpartyFields.find((f) => f.profile === 'BIRTH_DATE');
      const others = api('GET', '/config').supportedCurrencies.filter((x) => x.currencyCode !== 'USD');
      return (c.maxAmount === 5000000 && c.minAmount === usd.minAmount && bd && bd.mandatory === false &&
        sameList(others, orig.supportedCurrencies.filter((x) => x.currencyCode !== 'USD'))) || JSON.stringify(c);
    });
    await shot('currency-edited');

    // Add a currency, then remove it.
    await page.type('#cur-new', 'GBP');
    await page.click('[data-action=add-currency]');
    await page.click('#edit-currencies button[type=submit]');
    await step('currencies: GBP added, shown and read back', async () => {
      await page.waitForSelector('[data-max=GBP]', { timeout: T });
      const codes = api('GET', '/config').supportedCurrencies.map((x) => x.currencyCode);
      return codes.includes('GBP') || codes.join(',');
    });
    await shot('currency-added');
    await page.evaluate(() => document.querySelector('#platform-notice')?.remove());
    await page.click('fieldset.currency[data-currency=GBP] [data-action=remove-currency]');
    await page.click('#edit-currencies button[type=submit]');
    await step('currencies: GBP removed', async () => {
      await page.waitForFunction(() => document.querySelector('#platform-notice') && !document.querySelector('[data-max=GBP]'), { timeout: T });
      const codes = api('GET', '/config').supportedCurrencies.map((x) => x.currencyCode);
      return !codes.includes('GBP') || codes.join(',');
    });

    // A negative minAmount: the 400 next to that entry's field.
    expectErrors(true);
    await fill(page, 'fieldset.currency[data-currency=EUR] input[data-field=minAmount]', '-5');
    await page.click('#edit-currencies button[type=submit]');
    await step('currencies: EUR minAmount -5 refused next to its field', async () => {
      const key = `supportedCurrencies[${eurAt}].minAmount`;
      const sel = `#edit-currencies .field-error[data-error-for="${key}"]`;
      await page.waitForSelector(sel, { timeout: T });
      const inEur = await page.$eval(sel, (el) => el.closest('fieldset.currency')?.dataset.currency);
      return inEur === 'EUR' || `shown in ${inEur}`;
    });
    await shot('currency-invalid');
    expectErrors(false);

    // The execution profile.
    await fill(page, '#p-btcFiatSpreadBps', '60');
    await fill(page, '#p-lockPriceDurationSeconds', '120');
    await page.click('#edit-profile button[type=submit]');
    await step('execution profile: 60 bps, 120 s shown and read back', async () => {
      await page.waitForFunction(() => document.querySelector('#execution-profile dd[data-field=btcFiatSpreadBps]')?.textContent === '60', { timeout: T });
      const p = api('GET', '/sandbox/lightning-execution-profile');
      return (p.btcFiatSpreadBps === 60 && p.lockPriceDurationSeconds === 120) || JSON.stringify(p);
    });
    await shot('profile-set');
    expectErrors(true);
    await fill(page, '#p-lockPriceDurationSeconds', '5');
    await page.click('#edit-profile button[type=submit]');
    await step('execution profile 5 s: the 400 next to the lock field', async () => {
      await page.waitForSelector('#edit-profile .field-error[data-error-for=lockPriceDurationSeconds]', { timeout: T });
      return true;
    });
    expectErrors(false);

    // Clear the endpoint with the button.
    await page.click('[data-action=clear-webhook]');
    await step('webhook endpoint: cleared, read back as null', async () => {
      await page.waitForFunction(() => document.querySelector('main dd[data-field=webhookEndpoint]')?.textContent === '—', { timeout: T });
      return api('GET', '/config').webhookEndpoint === null || 'not null';
    });

    // 360 px wide, with the forms.
    await page.setViewport({ width: 360, height: 740 });
    await step('360 px wide: the platform page (forms) needs no sideways scrolling', async () => {
      const w = await page.evaluate(() => document.documentElement.scrollWidth);
      return w <= 360 || `scrollWidth ${w}`;
    });
    await shot('platform-360px');
    await page.setViewport({ width: 1100, height: 800 });

    // The view token: the values, no form.
    await page.click('#signout');
    await go(page, '#/platform');
    await signIn(VIEW_ID, VIEW_SECRET);
    await step('view token: the platform values without any form or button', async () => {
      await page.waitForSelector('#execution-profile dd[data-field=btcFiatSpreadBps]', { timeout: T });
      const n = await page.$$eval('main form, main button, main input, main select', (l) => l.length);
      const max = await textOf(page, '[data-max=USD]');
      return (n === 0 && max === '5000000') || `${n} forms or controls, max ${max}`;
    });
    await shot('view-platform');
  } finally {
    // Put back what the other scenarios rely on.
    api('PATCH', '/config', {
      webhookEndpoint: orig.webhookEndpoint, quoteFeePolicy: orig.quoteFeePolicy, supportedCurrencies: orig.supportedCurrencies,
    });
    api('PATCH', '/sandbox/lightning-execution-profile', origProfile);
  }
  await step('restored: the configuration and execution profile as found', () => {
    const c = api('GET', '/config');
    const p = api('GET', '/sandbox/lightning-execution-profile');
    return (c.webhookEndpoint === orig.webhookEndpoint && sameList(c.quoteFeePolicy, orig.quoteFeePolicy) &&
      sameList(c.supportedCurrencies, orig.supportedCurrencies) && sameList(p, origProfile)) || JSON.stringify({ c, p });
  });
}, import.meta.url);
