// t/lib/console/harness.mjs - what every console scenario of t/32-console.t
// shares: the environment, chromium (headless, through puppeteer-core),
// steps reported as "ok|NAME" or "not ok|NAME|WHY" lines, screenshots,
// sign-in and the API through curl.
//
// Environment: XB_BASE_URL, XB_CLIENT_ID, XB_CLIENT_SECRET (a manage
// token), CONSOLE_VIEW_ID, CONSOLE_VIEW_SECRET (a view token of the same
// platform), CONSOLE_SHOTS (the folder of the screenshots), CONSOLE_RUN (a
// unique suffix), CHROMIUM (the browser, default /usr/bin/chromium),
// CONSOLE_WH_URL (a webhook receiver's URL).
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// puppeteer-core from tools/node_modules, as npm ci --prefix tools pins it.
const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(resolve(here, '../../../tools/package.json'));
const puppeteer = require('puppeteer-core');

const env = (k) => {
  const v = process.env[k];
  if (!v) { console.log(`not ok|environment|${k} is not set`); process.exit(2); }
  return v;
};
export const BASE = env('XB_BASE_URL').replace(/\/$/, '');
export const ID = env('XB_CLIENT_ID');
export const SECRET = env('XB_CLIENT_SECRET');
export const VIEW_ID = env('CONSOLE_VIEW_ID');
export const VIEW_SECRET = env('CONSOLE_VIEW_SECRET');
export const SHOTS = env('CONSOLE_SHOTS');
export const RUN = env('CONSOLE_RUN');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
/* A webhook receiver's URL, answering 201 "received <b>it</b>" (t/32-console.t). */
export const WH_URL = process.env.CONSOLE_WH_URL || '';
export const T = 15000;

mkdirSync(SHOTS, { recursive: true });

export const result = (good, name, why) =>
  console.log(good ? `ok|${name}` : `not ok|${name}|${String(why || '').replace(/[\r\n|]+/g, ' ')}`);

/* api(method, path, body): the API through curl, with the manage token. */
export function api(method, path, body) {
  const args = ['-sk', '-u', `${ID}:${SECRET}`, '-X', method, '-H', 'Content-Type: application/json'];
  if (body !== undefined) args.push('--data-binary', JSON.stringify(body));
  args.push(BASE + path);
  return JSON.parse(execFileSync('curl', args, { encoding: 'utf8' }) || 'null');
}

/* step(name, fn): an assertion; fn returns true, or throws / returns a reason. */
export async function step(name, fn) {
  try {
    const r = await fn();
    if (r === true) result(true, name);
    else result(false, name, r === undefined ? 'no result' : r);
    return r === true;
  } catch (e) {
    result(false, name, e && e.message ? e.message : e);
    return false;
  }
}

export const textOf = (page, sel) => page.$eval(sel, (el) => el.textContent);

/* go(page, hash): the console at #hash, loaded afresh (reloaded when already there). */
export async function go(page, hash) {
  const url = `${BASE}/console/${hash}`;
  if (page.url() === url) await page.reload({ waitUntil: 'networkidle0', timeout: T });
  else await page.goto(url, { waitUntil: 'networkidle0', timeout: T });
}

export async function signIn(page, id, secret) {
  await page.waitForSelector('#signin', { visible: true, timeout: T });
  await page.type('#clientId', id);
  await page.type('#clientSecret', secret);
  await page.click('#signin button[type=submit]');
}

/*
 * unlabelled(page): the ids (or tag names) of the controls in main that
 * have no label: inputs and selects without a <label>, buttons without
 * text or aria-label.
 */
export const unlabelled = (page) => page.$$eval('main input, main select, main textarea, main button', (l) => l
  .filter((c) => (c.tagName === 'BUTTON' ? !(c.textContent.trim() || c.getAttribute('aria-label')) : !(c.labels && c.labels.length)))
  .map((c) => c.id || c.tagName.toLowerCase()));

/* fill(page, selector, value): replaces an input's value as a person would. */
export async function fill(page, sel, value) {
  await page.click(sel, { clickCount: 3 });
  await page.keyboard.press('Backspace');
  if (value !== '') await page.type(sel, value);
}

/*
 * scenario(fn): runs fn(ctx) in a fresh headless chromium, ctx =
 * {browser, page, dialogs, consoleErrors, urls, pageUrls, expectErrors(on),
 * shot(name), signIn(id, secret)}; then asserts that the page logged no
 * console error and raised no dialog (outside expectErrors(true) ...
 * expectErrors(false), for steps whose 4xx the browser logs itself).
 * Screenshots are <scenario>-NN-<name>.png under CONSOLE_SHOTS.
 */
export async function scenario(fn, file) {
  const name = basename(file || process.argv[1] || 'console', '.mjs');
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    acceptInsecureCerts: true,
    args: ['--no-sandbox', '--ignore-certificate-errors', '--no-first-run', '--disable-gpu'],
    defaultViewport: { width: 1100, height: 800 },
  });
  let n = 0;
  let quiet = false;
  const ctx = { browser, dialogs: [], consoleErrors: [], urls: [], pageUrls: [] };
  try {
    const page = await browser.newPage();
    ctx.page = page;
    ctx.expectErrors = (on) => { quiet = on; };
    ctx.shot = async (what) => {
      n += 1;
      await page.screenshot({ path: `${SHOTS}/${name}-${String(n).padStart(2, '0')}-${what}.png`, fullPage: true });
    };
    ctx.signIn = (id, secret) => signIn(page, id, secret);
    page.on('console', (m) => { if (m.type() === 'error' && !quiet) ctx.consoleErrors.push(m.text()); });
    page.on('pageerror', (e) => ctx.consoleErrors.push(`pageerror: ${e.message}`));
    page.on('dialog', async (d) => { ctx.dialogs.push(d.message()); await d.dismiss(); });
    page.on('request', (r) => ctx.urls.push(r.url()));
    page.on('framenavigated', (f) => ctx.pageUrls.push(f.url()));
    await fn(ctx);
    await step(`${name}: no console error and no dialog`, () =>
      (ctx.consoleErrors.length === 0 && ctx.dialogs.length === 0) ||
      `${ctx.consoleErrors.join(' ; ')} ${ctx.dialogs.join(';')}`);
  } catch (e) {
    result(false, `${name}: browser run`, e && e.stack ? e.stack : e);
  } finally {
    await browser.close();
  }
}
