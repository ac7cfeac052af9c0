/*
 * platform.js: the Platform view, the caller's configuration (GET /config).
 */
import * as api from './api.js';
import { h, show, text, fields, table } from './dom.js';

export async function platform(main) {
  const cfg = await api.get('config');
  show(main,
    h('h1', null, 'Platform'),
    h('section', { class: 'card' }, fields(cfg, ['id', 'umaDomain', 'ppvDomain', 'webhookEndpoint', 'createdAt', 'updatedAt'])),
    h('h2', null, 'Fee policy'),
    h('section', { class: 'card' }, cfg.quoteFeePolicy ? fields(cfg.quoteFeePolicy) : '—'),
    h('h2', null, 'Currencies'),
    table([
      ['Currency', (c) => c.currencyCode],
      ['Min', (c) => text(c.minAmount)],
      ['Max', (c) => text(c.maxAmount)],
      ['Directions', (c) => (c.enabledTransactionTypes || []).join(', ')],
      ['Counterparty fields', (c) => (c.requiredCounterpartyFields || []).map((f) => `${f.name || f.profile}${f.mandatory ? ' (mandatory)' : ''}`).join(', ') || '—'],
    ], cfg.supportedCurrencies || []));
}

