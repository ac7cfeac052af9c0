/*
 * main.js: sign-in, the session's permissions and the hash router.
 * Routes: #/platform, #/customers, #/customers/<id>, #/transactions,
 * #/transactions/<id>, #/quotes, #/quotes/<id>, #/webhooks, #/webhooks/<id>.  The hash never holds
 * a credential.
 */
import * as api from './api.js';
import { h, show, errorBox } from './dom.js';
import * as platform from './platform.js';
import * as customers from './customers.js';
import * as transactions from './transactions.js';
import * as quotes from './quotes.js';
import * as webhooks from './webhooks.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const who = document.getElementById('who');
const signoutBtn = document.getElementById('signout');

/* What the signed-in token may do, from GET /tokens/{its clientId}. */
const session = { token: null, canManage: false };

function signinForm(err) {
  nav.hidden = true;
  signoutBtn.hidden = true;
  who.textContent = '';
  const id = h('input', { id: 'clientId', name: 'clientId', autocomplete: 'off', required: true, spellcheck: 'false' });
  const secret = h('input', { id: 'clientSecret', name: 'clientSecret', type: 'password', autocomplete: 'off', required: true });
  const msg = h('div', { 'aria-live': 'polite' }, err ? errorBox(err) : null);
  const form = h('form', {
    id: 'signin',
    onsubmit: async (ev) => {
      ev.preventDefault();
      api.setCredentials(id.value.trim(), secret.value);
      try {
        await loadSession();
        if (!location.hash || location.hash === '#/' || location.hash === '#/signin') location.hash = '#/customers';
        else route();
      } catch (e) {
        api.clearCredentials();
        show(msg, errorBox(e));
      }
    },
  },
  h('label', { for: 'clientId' }, 'Client id', id),
  h('label', { for: 'clientSecret' }, 'Client secret', secret),
  h('button', { type: 'submit' }, 'Sign in'));
  show(main, h('section', { class: 'card signin' },
    h('h1', null, 'Sign in'),
    h('p', { class: 'muted' }, 'The credentials are kept in this tab only and forgotten when you sign out or close it.'),
    msg, form));
  id.focus();
}

/* loadSession: reads the token's own record; throws ApiError. */
async function loadSession() {
  const c = api.credentials();
  const tok = await api.get(`tokens/${encodeURIComponent(c.clientId)}`);
  session.token = tok;
  session.canManage = Array.isArray(tok.permissions) && tok.permissions.includes('manage');
  nav.hidden = false;
  signoutBtn.hidden = false;
  who.textContent = `${tok.name} (${session.canManage ? 'manage' : 'view only'})`;
}

function signOut() {
  api.clearCredentials();
  session.token = null;
  session.canManage = false;
  history.replaceState(null, '', location.pathname);
  signinForm();
}

signoutBtn.addEventListener('click', signOut);
api.setUnauthorizedHandler(() => {
  session.token = null;
  signinForm({ status: 401, code: 'UNAUTHORIZED', message: 'Sign in again.', details: {} });
});

async function route() {
  if (!api.credentials()) { signinForm(); return; }
  if (!session.token) {
    try { await loadSession(); } catch (e) { if (e.status !== 401) signinForm(e); return; }
  }
  const path = location.hash.replace(/^#\/?/, '').split('?')[0] || 'customers';
  const parts = path.split('/').map(decodeURIComponent);
  for (const a of nav.querySelectorAll('a')) {
    if (a.getAttribute('href') === `#/${parts[0]}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const view = {
    platform: platform.platform,
    customers: parts[1] ? customers.customer : customers.customers,
    transactions: parts[1] ? transactions.transaction : transactions.transactions,
    quotes: parts[1] ? quotes.quote : quotes.quotes,
    webhooks: parts[1] ? webhooks.delivery : webhooks.webhooks,
  }[parts[0]];
  if (!view) { show(main, errorBox({ code: 'NOT_FOUND', message: 'No such page.' })); return; }
  show(main, h('p', { class: 'muted' }, 'Loading…'));
  try {
    await view(main, session, parts[1]);
  } catch (e) {
    if (e.status !== 401) show(main, errorBox(e));
  }
}

window.addEventListener('hashchange', route);
route();
