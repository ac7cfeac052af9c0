/*
 * webhooks.js: the delivery log (filters, paging, retry) and an event's
 * page: its payload and attempt log.
 */
import * as api from './api.js';
import { h, show, text, fields, table, link } from './dom.js';
import { PAGE, pager, action, input, status, failed, apiForm, dateRange } from './ui.js';

const STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'REFUNDED', 'REJECTED', 'EXPIRED', 'CREATED'];
const EVENT_TYPES = ['', ...['OUTGOING_PAYMENT', 'INCOMING_PAYMENT'].flatMap((k) => STATUSES.map((s) => `${k}.${s}`))];

export async function webhooks(main, session) {
  const [cfg, key] = await Promise.all([api.get('config'), api.get('webhooks/signing-key')]);
  show(main, h('h1', null, 'Webhooks'),
    endpointCard(cfg, session),
    keyCard(key, session),
    h('h2', null, 'Deliveries'));
  main.appendChild(await deliveryLog(session));
}

/* endpointCard: the endpoint and (manage) the connectivity test. */
function endpointCard(cfg, session) {
  const out = h('div', { 'aria-live': 'polite', id: 'test-result' });
  const test = action('Send a test event', async () => {
    const r = await api.post('webhooks/test');
    show(out, h('div', { class: 'notice' },
      fields(r, ['url', 'responseStatus']),
      h('p', { class: 'muted' }, 'Response body (first 4 KiB):'),
      h('pre', { id: 'test-body' }, text(r.responseBody === '' ? '(empty)' : r.responseBody))));
  }, out, { 'data-action': 'test' });
  return h('section', { class: 'card', id: 'endpoint' },
    h('h2', null, 'Endpoint'),
    h('p', null, 'Events are sent to ', h('code', { id: 'endpoint-url' }, text(cfg.webhookEndpoint)), ' (set it on the ', link('#/platform', 'Platform'), ' page).'),
    session.canManage ? h('div', { class: 'actions' }, test) : null,
    out);
}

/* keyCard: the signing key and (manage) its rotation, confirmed inline. */
function keyCard(key, session) {
  const out = h('div', { 'aria-live': 'polite' });
  const body = h('div');
  const draw = (k) => show(body,
    fields(k, Object.keys(k).filter((f) => f !== 'publicKeyPem')),
    h('pre', { id: 'public-key' }, k.publicKeyPem));
  draw(key);
  let confirm = null;
  const rotate = action('Rotate the key', async () => {
    if (confirm) return;
    confirm = action('Confirm rotation', async () => {
      draw(await api.post('webhooks/signing-key/rotate'));
      confirm.remove();
      confirm = null;
    }, out, { 'data-action': 'confirm-rotate', class: 'danger' });
    rotate.after(confirm);
    confirm.focus();
  }, out, { 'data-action': 'rotate', class: 'secondary' });
  return h('section', { class: 'card', id: 'signing-key' },
    h('h2', null, 'Signing key'),
    h('p', { class: 'muted' }, 'Every attempt is signed with the current key (Ed25519); after a rotation the previous key stays readable by its keyId for 72 hours.'),
    body,
    session.canManage ? h('div', { class: 'actions' }, rotate) : null,
    out);
}

/* deliveryLog: the filters and the paged log of GET /webhooks/deliveries. */
async function deliveryLog(session) {
  let cursor = 0;
  const listOut = h('div');
  const out = h('div', { 'aria-live': 'polite' });
  const [stL, st] = input('f-wstatus', 'Status', { options: ['', 'PENDING', 'DELIVERED', 'FAILED'], path: 'status' });
  const [tyL, ty] = input('f-wtype', 'Event type', { options: EVENT_TYPES, path: 'type' });
  const [txL, tx] = input('f-wtransactionId', 'Transaction id', { path: 'transactionId' });
  const [dates, sd, ed] = dateRange('f-w');
  async function load(at) {
    const list = await api.get('webhooks/deliveries', {
      limit: PAGE, cursor: at, status: st.value, type: ty.value, transactionId: tx.value.trim(),
      startDate: sd.value, endDate: ed.value,
    });
    cursor = at;
    show(listOut,
      table([
        ['Event', (d) => link(`#/webhooks/${encodeURIComponent(d.id)}`, d.id)],
        ['Type', (d) => d.type],
        ['Status', (d) => status(d.status)],
        ['Attempts', (d) => String(d.attempts)],
        ['Last answer', (d) => text(d.lastResponseStatus)],
        ['Created', (d) => d.createdAt],
        ['', (d) => (session.canManage ? action('Retry', async () => {
          await api.post(`webhooks/deliveries/${encodeURIComponent(d.id)}/retry`);
          await load(cursor);
        }, out) : '')],
      ], list.data),
      pager(list, cursor, (n) => load(n).catch((e) => failed(listOut, e))));
  }
  const [filters, fout] = apiForm({ class: 'card', id: 'delivery-filters' }, () => load(0),
    stL, tyL, txL, dates, h('button', { type: 'submit' }, 'Filter'));
  try { await load(0); } catch (e) { failed(listOut, e); }
  return h('div', null, filters, fout, out, listOut);
}

export async function delivery(main, session, id) {
  const d = await api.get(`webhooks/deliveries/${encodeURIComponent(id)}`);
  const out = h('div', { 'aria-live': 'polite' });
  const { event, attemptLog, ...item } = d;
  show(main,
    h('h1', null, `Event ${d.id}`),
    out,
    session.canManage ? h('div', { class: 'actions' }, action('Retry', async () => {
      await api.post(`webhooks/deliveries/${encodeURIComponent(d.id)}/retry`);
      await delivery(main, session, id);
    }, out)) : null,
    h('section', { class: 'card' }, fields(item)),
    d.transactionId ? h('p', null, link(`#/transactions/${encodeURIComponent(d.transactionId)}`, 'Its transaction')) : null,
    h('h2', null, 'Payload'),
    h('pre', { id: 'payload' }, JSON.stringify(event, null, 2)),
    h('h2', null, 'Attempts'),
    table([
      ['At', (a) => a.at],
      ['Answer', (a) => text(a.responseStatus)],
      ['Error', (a) => text(a.error)],
      ['Duration (ms)', (a) => text(a.durationMs)],
      ['Manual', (a) => (a.manual ? 'yes' : 'no')],
    ], attemptLog || []));
}
