/*
 * webhooks.js: the delivery log (filters, paging, retry) and an event's
 * page: its payload and attempt log.
 */
import * as api from './api.js';
import { h, show, text, fields, table, link } from './dom.js';
import { PAGE, pager, action, input, status, failed } from './ui.js';

export async function webhooks(main, session) {
  let cursor = 0;
  const listOut = h('div');
  const out = h('div', { 'aria-live': 'polite' });
  const [stL, st] = input('f-wstatus', 'Status', { options: ['', 'PENDING', 'DELIVERED', 'FAILED'] });
  const [txL, tx] = input('f-wtransactionId', 'Transaction id');
  async function load(at) {
    cursor = at;
    try {
      const list = await api.get('webhooks/deliveries', { limit: PAGE, cursor, status: st.value, transactionId: tx.value.trim() });
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
        pager(list, cursor, load));
    } catch (e) { failed(listOut, e); }
  }
  show(main, h('h1', null, 'Webhook deliveries'),
    h('form', { class: 'card', onsubmit: (ev) => { ev.preventDefault(); load(0); } }, stL, txL, h('button', { type: 'submit' }, 'Filter')),
    out, listOut);
  await load(0);
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
