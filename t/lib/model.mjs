#!/usr/bin/env node
// t/lib/model.mjs - the randomized model test of t/68-model.t: a seeded
// generator of operations over three platforms, a model of every balance
// and status computed from the contract's formulas alone (payments-api
// 2026-04-08 and decisions.md), and a comparison after every step and at
// the end.
//
//   XB_MODEL_PLAN=FILE [XB_MODEL_SEED=N] [XB_MODEL_OPS=N] node model.mjs
//
// FILE: JSON {"base": URL, "platforms": [{"id", "secret", "spread", "lock",
//   "feeS", "feeR", "currencies": {CUR: {"min", "max", "exp",
//   "mandatory": [PROFILE...]}}}], "prices": {CUR: PRICE}, "run": PREFIX}.
// Output, one line each: "note|TEXT", "ok|NAME", "not ok|NAME|WHY".  The
// first line is the seed; the same seed (and op count) replays the same
// sequence of operations: every choice depends only on the PRNG and on
// what the model knows for certain (never on how fast the server settles).
//
// Exit status 0 whatever the assertions say; 2 on a bad plan.
import fs from 'node:fs';
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
process.removeAllListeners('warning');

const out = (s) => process.stdout.write(s.replace(/\n/g, ' ') + '\n');
const note = (s) => out(`note|${s}`);

const plan = JSON.parse(fs.readFileSync(process.env.XB_MODEL_PLAN, 'utf8'));
const SEED = process.env.XB_MODEL_SEED ? Number(process.env.XB_MODEL_SEED) >>> 0
    : crypto.randomInt(1, 2 ** 31);
const OPS = Number(process.env.XB_MODEL_OPS || 300);
note(`seed ${SEED} ops ${OPS} (replay: XB_MODEL_SEED=${SEED} XB_MODEL_OPS=${OPS})`);

// --- PRNG (mulberry32) ------------------------------------------------------------------
let rs = SEED;
function rnd() {
    rs = (rs + 0x6D2B79F5) >>> 0;
    let t = rs;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const ri = (a, b) => a + Math.floor(rnd() * (b - a + 1));   // integer in [a, b]
const pick = (arr) => arr[Math.floor(rnd() * arr.length)];
const chance = (p) => rnd() < p;
function weighted(pairs) {
    const tot = pairs.reduce((s, [, w]) => s + w, 0);
    let x = rnd() * tot;
    for (const [v, w] of pairs) { if ((x -= w) < 0) return v; }
    return pairs[pairs.length - 1][0];
}
let uuidCounter = 0;
// A deterministic UUIDv4-shaped id nobody has (for the requests that must fail).
function fakeUuid() {
    const h = (n) => Array.from({ length: n }, () => '0123456789abcdef'[ri(0, 15)]).join('');
    uuidCounter++;
    return `${h(8)}-${h(4)}-4${h(3)}-${pick(['8', '9', 'a', 'b'])}${h(3)}-${h(12)}`;
}

// --- HTTP -----------------------------------------------------------------------------------
const BASE = plan.base.replace(/\/$/, '');
const P = plan.platforms.map((p, i) => ({ ...p, i, auth: 'Basic ' + Buffer.from(`${p.clientId}:${p.secret}`).toString('base64') }));
let requests = 0;
async function call(p, method, path, body) {
    requests++;
    const opt = { method, headers: { authorization: p.auth } };
    if (body !== undefined) {
        opt.headers['content-type'] = 'application/json';
        opt.body = typeof body === 'string' ? body : JSON.stringify(body);
    }
    for (let attempt = 0; ; attempt++) {
        try {
            const r = await fetch(BASE + path, opt);
            const text = await r.text();
            let j = null;
            try { j = JSON.parse(text); } catch { /* not JSON */ }
            return { status: r.status, body: j, text };
        } catch (e) {
            if (attempt >= 2) return { status: 0, body: null, text: String(e) };
            await sleep(200);
        }
    }
}

// --- assertions, aggregated by kind ---------------------------------------------------------
const KINDS = {
    responses: 'every request answered the status and error code the model expects',
    pricing: 'every quote priced by the contract formulas (S, R, fees, rate, expiry, status)',
    statuses: 'after every step, every transaction in a status the model allows at that moment',
    balances: 'after every step, every touched balance as the model computes it',
    finalStatuses: 'at the end, every transaction and quote in its final status',
    finalBalances: 'at the end, every balance of every live customer and platform exact',
    counts: 'at the end, each platform lists as many transactions as the model made',
};
const fails = Object.fromEntries(Object.keys(KINDS).map((k) => [k, []]));
const counts = Object.fromEntries(Object.keys(KINDS).map((k) => [k, 0]));
let step = 0, curOp = '';
let aborted = null;
function check(kind, good, what) {
    counts[kind]++;
    if (good) return true;
    const msg = `step ${step} (seed ${SEED}) ${curOp}: ${what}`;
    fails[kind].push(msg);
    if (fails[kind].length <= 5) note(`MISMATCH [${kind}] ${msg}`);
    return false;
}
const J = (x) => JSON.stringify(x);

// expect(res, status, code, extra): compares a response with the model's answer.
const seen = new Map();   // what -> count, for the coverage note at the end
function expect(res, st, code, what) {
    const sk = `${st}${code ? ' ' + code : ''}: ${what.replace(/ for \S+( \(P\d\))?/g, '')
        .replace(/\b(Quote|Transaction|Customer|ExternalAccount):[0-9a-f-]+/g, '$1:<id>').replace(/\d+/g, 'N')}`;
    seen.set(sk, (seen.get(sk) || 0) + 1);
    const got = `${res.status}${res.body && res.body.code ? ' ' + res.body.code : ''}`;
    const want = `${st}${code ? ' ' + code : ''}`;
    const good = res.status === st && (!code || (res.body && res.body.code === code));
    if (!check('responses', good, `${what}: want ${want}, got ${got} ${res.text.slice(0, 300)}`)) {
        aborted = aborted || `step ${step}: ${curOp}: want ${want}, got ${got}`;
        return false;
    }
    return true;
}

// --- the model's world ----------------------------------------------------------------------
const CURS = Object.keys(plan.platforms[0].currencies);
const live = P.map(() => []);     // live customers per platform
const custs = new Map();          // id -> customer
const exts = new Map();           // id -> external account
const txs = new Map();            // id -> transaction
const quotes = new Map();         // id -> quote
const base = new Map();           // account key -> funded total (not a transaction)
const byAcct = new Map();         // account key -> [tx]
const txCount = P.map(() => 0);
const reviews = [];               // review cases
const quoteList = [];
const held = [];                  // 003 transactions held for a helper (model-certain)
const done = [];                  // transactions whose final status is certain and reached or will be
let customerSeq = 0;

const ckey = (pi, cid, cur) => `${pi}|${cid}|${cur}`;
const pkey = (pi, cur) => `${pi}|P|${cur}`;
function link(tx) {
    tx.accts = [...new Set(tx.accts)];
    for (const k of tx.accts) {
        if (!byAcct.has(k)) byAcct.set(k, []);
        byAcct.get(k).push(tx);
    }
    txs.set(tx.id, tx);
}

// Paths: the statuses a transaction goes through by itself, by kind and outcome.
function pathFor(kind, suffix) {
    if (kind === 'tin') return suffix === '002' ? ['PENDING', 'FAILED'] : suffix === '003' ? ['PENDING'] : ['PENDING', 'COMPLETED'];
    const s0 = kind === 'tout' ? 'PENDING' : 'PROCESSING';
    if (suffix === '002') return [s0, 'FAILED'];
    if (suffix === '003') return [s0];
    if (suffix === '005') return [s0, 'COMPLETED', 'REFUNDED'];
    return [s0, 'COMPLETED'];
}
const finalOf = (tx) => tx.path[tx.path.length - 1];
const certain = (tx) => tx.kd === tx.path.length - 1;      // the model knows where it stays
// set a new path (a helper moved it, a quote executed, a case decided)
function moveTo(tx, path) { tx.path = path; tx.kd = 0; tx.ko = 0; tx.obs = path[0]; }

// effects(tx, status): [[account key, delta]] for the transaction in that status.
function effects(tx, st) {
    switch (tx.kind) {
    case 'tin': return st === 'COMPLETED' ? [[tx.int, tx.amount]] : [];
    case 'tout': return st === 'PENDING' || st === 'COMPLETED' ? [[tx.int, -tx.amount]] : [];
    case 'rev': return st === 'COMPLETED' ? [[tx.int, tx.amount]] : [];
    case 'qppv': {
        if (st !== 'COMPLETED') return [];
        const q = tx.q;
        return [[q.src, -q.S], [q.dst, q.R], [pkey(q.pi, q.cs), q.fs], [pkey(q.rpi, q.cs), q.fr]];
    }
    case 'qext': {
        if (st !== 'PROCESSING' && st !== 'COMPLETED') return [];
        const q = tx.q;
        if (!q.executed) return [];
        return [[q.src, -q.S], [pkey(q.pi, q.cs), q.fees]];
    }
    default: return [];
    }
}
function deltaOf(tx, key, st) {
    let d = 0;
    for (const [k, v] of effects(tx, st)) if (k === key) d += v;
    return d;
}
// The balance when every transaction is in the status given by stOf.
function balanceWith(key, stOf) {
    let b = base.get(key) || 0;
    for (const tx of byAcct.get(key) || []) b += deltaOf(tx, key, stOf(tx));
    return b;
}
// Certain bounds (model knowledge only): min and max over each transaction's remaining path.
function bounds(key) {
    let lo = base.get(key) || 0, hi = lo;
    for (const tx of byAcct.get(key) || []) {
        const ds = tx.path.slice(tx.kd).map((s) => deltaOf(tx, key, s));
        lo += Math.min(...ds);
        hi += Math.max(...ds);
    }
    return [lo, hi];
}
const finalBalance = (key) => balanceWith(key, finalOf);

// --- reading the server ---------------------------------------------------------------------
async function readStatus(tx) {
    const r = await call(P[tx.pi], 'GET', `/transactions/${tx.id}`);
    return r.status === 200 && r.body ? r.body.status : `HTTP ${r.status}`;
}
async function customerBalances(pi, cid) {
    const r = await call(P[pi], 'GET', `/customers/internal-accounts?customerId=${cid}&limit=100`);
    const m = new Map();
    if (r.status !== 200) return null;
    for (const a of r.body.data) m.set(ckey(pi, cid, a.currency), Number(a.balance.amountMinor));
    return m;
}
async function platformBalances(pi) {
    const r = await call(P[pi], 'GET', '/platform/internal-accounts?limit=100');
    const m = new Map();
    if (r.status !== 200) return null;
    for (const a of r.body.data) m.set(pkey(pi, a.currency), Number(a.balance.amountMinor));
    return m;
}
// Observed status: must be allowed (in the path from the certain index on, not
// before the last one seen); advances ko.
function observe(tx, st, where) {
    const idx = tx.path.indexOf(st, tx.ko);
    const ok = check('statuses', idx >= 0 && idx >= tx.kd,
        `${where}: ${tx.kind} ${tx.id} (${tx.desc}) is ${st}; allowed now ${J(tx.path.slice(Math.max(tx.kd, tx.ko)))}`);
    if (ok) { tx.ko = idx; tx.obs = st; }
    return ok;
}
// settle(list): wait (bounded) until each transaction reaches its final status; then certain.
// The bound is generous: the contract says about a second, but a longer
// wait is noted (longest settle wait at the end), not failed, up to the bound.
let longestWait = 0;
async function settle(list, where, seconds = 60) {
    const began = Date.now();
    const deadline = began + seconds * 1000;
    let pending = list.filter((tx) => !certain(tx));
    while (pending.length) {
        const sts = await Promise.all(pending.map(readStatus));
        const next = [];
        pending.forEach((tx, i) => {
            if (!observe(tx, sts[i], where)) { tx.kd = tx.path.length - 1; return; }
            if (sts[i] === finalOf(tx)) tx.kd = tx.ko = tx.path.length - 1;
            else next.push(tx);
        });
        pending = next;
        if (!pending.length) break;
        longestWait = Math.max(longestWait, Date.now() - began);
        if (Date.now() > deadline) {
            for (const tx of pending) {
                check('statuses', false, `${where}: ${tx.kind} ${tx.id} (${tx.desc}) still ${tx.obs} after ${seconds} s, want ${finalOf(tx)}`);
                tx.kd = tx.ko = tx.path.length - 1;
            }
            break;
        }
        await sleep(100);
    }
}
const acctTxs = (key) => byAcct.get(key) || [];

// compare(cust keys, platforms): the per-step comparison of the touched accounts.
async function compare(custSet, platSet, where) {
    const keys = new Set();
    for (const s of custSet) { const [pi, cid] = s.split('|'); for (const c of CURS) keys.add(ckey(pi, cid, c)); }
    for (const pi of platSet) for (const c of CURS) keys.add(pkey(pi, c));
    const rel = new Set();
    for (const k of keys) for (const tx of acctTxs(k)) if (!certain(tx) && tx.ko < tx.path.length - 1) rel.add(tx);
    const relv = [...rel];
    let s1, s2, bals;
    for (let attempt = 0; attempt < 8; attempt++) {
        s1 = await Promise.all(relv.map(readStatus));
        bals = await Promise.all([
            ...[...custSet].map((s) => { const [pi, cid] = s.split('|'); return customerBalances(Number(pi), cid); }),
            ...[...platSet].map((pi) => platformBalances(Number(pi)))]);
        s2 = await Promise.all(relv.map(readStatus));
        if (J(s1) === J(s2)) break;
    }
    const stOf = new Map();
    relv.forEach((tx, i) => { observe(tx, s2[i], where); stOf.set(tx, s2[i]); });
    const got = new Map();
    for (const m of bals) {
        if (!m) { check('balances', false, `${where}: could not read balances`); return; }
        for (const [k, v] of m) got.set(k, v);
    }
    for (const k of keys) {
        const want = balanceWith(k, (tx) => stOf.get(tx) || tx.path[Math.max(tx.kd, tx.ko)]);
        const g = got.has(k) ? got.get(k) : (k.includes('|P|') ? 0 : undefined);
        check('balances', g === want, `${where}: balance of ${k} is ${g}, model ${want} (in flight: ${relv.filter((t) => t.accts.includes(k)).map((t) => `${t.kind}:${t.desc}:${stOf.get(t)}`).join(', ') || 'none'})`);
    }
}

// --- pricing (decisions.md section 9) ---------------------------------------------------------
const B = (x) => BigInt(x);
const cdiv = (a, b) => (a + b - 1n) / b;
function price(q) {
    // q: {pi, rpi, cs, cr, side, amount}
    const sp = B(P[q.pi].spread + P[q.rpi].spread);
    const F = B(P[q.pi].feeS + P[q.rpi].feeR);
    const Fs = B(P[q.pi].feeS);
    const ps = B(plan.prices[q.cs]), pr = B(plan.prices[q.cr]);
    let Pp, fees, S, R;
    if (q.side === 'RECEIVING') {
        R = B(q.amount);
        Pp = cdiv(R * ps * 10000n, pr * (10000n - sp));
        fees = cdiv(Pp * F, 10000n);
        S = Pp + fees;
    } else {
        S = B(q.amount);
        // the largest P with P + ceil(P*F/10000) <= S
        let lo = 0n, hi = S;
        while (lo < hi) {
            const mid = (lo + hi + 1n) / 2n;
            if (mid + cdiv(mid * F, 10000n) <= S) lo = mid; else hi = mid - 1n;
        }
        Pp = lo;
        fees = S - Pp;
        R = (Pp * pr * (10000n - sp)) / (ps * 10000n);
    }
    const fs = Pp * Fs / 10000n + ((Pp * Fs) % 10000n ? 1n : 0n);
    const fsm = fs < fees ? fs : fees;
    const es = B(plan.platforms[q.pi].currencies[q.cs].exp), er = B(plan.platforms[q.rpi].currencies[q.cr].exp);
    const num = pr * 10n ** es * (10000n - sp) * 10n ** 8n, den = ps * 10n ** er * 10000n;
    const r8 = num / den;
    const rate = `${r8 / 10n ** 8n}.${String(r8 % 10n ** 8n).padStart(8, '0')}`;
    return { P: Number(Pp), S: Number(S), R: Number(R), fees: Number(fees), fs: Number(fsm), fr: Number(fees - fsm), rate };
}

// --- operations -----------------------------------------------------------------------------
const AMT = { USD: 2000000, EUR: 2000000, JPY: 200000, KWD: 2000000 };
const liveAll = () => live.flatMap((l) => l);
const custAcct = (c, cur) => ckey(c.pi, c.id, cur);
const extOf = (c) => c.exts.filter((e) => !e.deleted);
let touchedC, touchedP;
const touchC = (c) => touchedC.add(`${c.pi}|${c.id}`);
const touchP = (pi) => touchedP.add(String(pi));

async function opCreateCustomer() {
    const pi = ri(0, 2);
    const kyc = weighted([['APPROVED', 86], ['PENDING', 7], ['REJECTED', 7]]);
    const pcid = `${plan.run}-c${++customerSeq}`;
    const body = { platformCustomerId: pcid, customerType: pick(['INDIVIDUAL', 'ENTITY']), fullName: `Model ${customerSeq}` };
    if (kyc !== 'APPROVED' || chance(0.3)) body.kycStatus = kyc;
    curOp = `create customer ${pcid} on P${pi} (${kyc})`;
    const r = await call(P[pi], 'POST', '/customers', body);
    if (!expect(r, 201, null, 'POST /customers')) return;
    const c = { id: r.body.id, pi, pcid, kyc, ppv: r.body.ppvAddress, exts: [], deleted: false, name: body.fullName };
    check('responses', r.body.kycStatus === kyc && r.body.platformCustomerId === pcid, `customer readback ${J(r.body)}`);
    const m = await call(P[pi], 'GET', `/customers/internal-accounts?customerId=${c.id}&limit=100`);
    c.ints = {};
    if (expect(m, 200, null, 'GET internal accounts')) for (const a of m.body.data) c.ints[a.currency] = a.id;
    check('responses', CURS.every((x) => c.ints[x]), `internal accounts of a new customer: ${J(Object.keys(c.ints))}, want ${J(CURS)}`);
    custs.set(c.id, c);
    live[pi].push(c);
    touchC(c);
}

async function opDupCustomer() {
    const c = pick(liveAll());
    curOp = `duplicate platformCustomerId ${c.pcid} on P${c.pi}`;
    const r = await call(P[c.pi], 'POST', '/customers', { platformCustomerId: c.pcid, customerType: 'INDIVIDUAL', fullName: 'dup' });
    expect(r, 409, 'CUSTOMER_ALREADY_EXISTS', 'POST /customers with a live platformCustomerId');
}

async function opCreateExt() {
    const c = pick(liveAll());
    const cur = pick(CURS);
    const kind = weighted([['new', 90], ['dup', 5], ['bad', 5]]);
    let num;
    const same = extOf(c).filter((e) => e.cur === cur);
    if (kind === 'dup' && same.length) num = pick(same).num;
    else num = String(ri(100000, 999999)) + weighted([['001', 40], ['002', 20], ['003', 20], ['005', 20]]);
    if (kind === 'bad') num = `${ri(1, 9)}-${ri(1, 9)}`;
    curOp = `external account ...${num} (${cur}) for ${c.pcid} on P${c.pi}`;
    const body = { customerId: c.id, currency: cur, platformAccountId: `pa-${step}`,
        accountInfo: { accountType: 'CHECKING', accountCategory: 'PERSONAL', bankName: 'Model Bank', accountNumber: num, routingNumber: '021000021' } };
    const r = await call(P[c.pi], 'POST', '/customers/external-accounts', body);
    if (kind === 'bad') return expect(r, 400, 'INVALID_REQUEST', 'POST /customers/external-accounts with accountNumber of the wrong form');
    if (c.exts.some((e) => !e.deleted && e.cur === cur && e.num === num)) return expect(r, 409, 'EXTERNAL_ACCOUNT_EXISTS', 'the same account twice');
    if (!expect(r, 201, null, 'POST /customers/external-accounts')) return;
    check('responses', r.body.accountInfo && r.body.accountInfo.accountNumberLast4 === num.slice(-4), `masked readback ${J(r.body.accountInfo)}`);
    const e = { id: r.body.id, c, cur, num, suffix: num.slice(-3), deleted: false, txs: [] };
    c.exts.push(e);
    exts.set(e.id, e);
}

async function opFund() {
    const c = pick(liveAll());
    const cur = pick(CURS);
    const n = ri(1, AMT[cur] * 5);
    curOp = `fund ${c.pcid} ${cur} ${n}`;
    const r = await call(P[c.pi], 'POST', `/sandbox/internal-accounts/${c.ints[cur]}/fund`, { amountMinor: n });
    if (!expect(r, 200, null, 'POST /sandbox/internal-accounts/{id}/fund')) return;
    const k = custAcct(c, cur);
    base.set(k, (base.get(k) || 0) + n);
    touchC(c);
}

function newTx(o) {
    const tx = { kd: 0, ko: 0, ...o };
    tx.obs = tx.path[0];
    link(tx);
    txCount[tx.pi]++;
    return tx;
}

async function opTransfer(dir) {
    const cands = liveAll().filter((c) => extOf(c).length);
    if (!cands.length) return opCreateExt();
    let c = pick(cands);
    let e = pick(extOf(c));
    if (dir === 'out' && chance(0.8)) {
        const rich = cands.flatMap((x) => extOf(x)).filter((x) => bounds(custAcct(x.c, x.cur))[0] > 0);
        if (rich.length) { e = pick(rich); c = e.c; }
    }
    const key = custAcct(c, e.cur);
    const max = plan.platforms[c.pi].currencies[e.cur].max;
    let amount, want;
    if (dir === 'in') {
        amount = ri(1, AMT[e.cur]);
        want = 201;
        if (e.cur === 'KWD' && chance(0.1)) { amount = max + ri(1, 1000); want = 'range'; }
    } else {
        const [lo, hi] = bounds(key);
        if (lo >= 1 && chance(0.85)) { amount = ri(1, lo); want = 201; }
        else { amount = hi + ri(1, 100000); want = amount > max ? 'range' : 'funds'; }
    }
    curOp = `transfer-${dir} ${e.cur} ${amount} ${c.pcid} (P${c.pi}) ${dir === 'in' ? 'from' : 'to'} ...${e.suffix}`;
    const body = dir === 'in'
        ? { source: { accountId: e.id }, destination: { accountId: c.ints[e.cur] }, amount: { currencyCode: e.cur, amountMinor: String(amount) } }
        : { source: { accountId: c.ints[e.cur] }, destination: { accountId: e.id }, amount: { currencyCode: e.cur, amountMinor: String(amount) } };
    const r = await call(P[c.pi], 'POST', `/transfer-${dir}`, body);
    touchC(c);
    if (want === 'range') return expect(r, 400, 'AMOUNT_OUT_OF_RANGE', `transfer-${dir} above maxAmount ${max}`);
    if (want === 'funds') {
        if (!expect(r, 409, 'INSUFFICIENT_FUNDS', `transfer-out over the balance (at most ${bounds(key)[1]})`)) return;
        check('responses', r.body.details && r.body.details.requested && r.body.details.requested.amountMinor === String(amount),
            `INSUFFICIENT_FUNDS details ${J(r.body.details)}`);
        return;
    }
    if (!expect(r, 201, null, `POST /transfer-${dir}`)) return;
    const tx = newTx({ id: r.body.transactionId, pi: c.pi, kind: dir === 'in' ? 'tin' : 'tout', int: key, amount, accts: [key],
        path: pathFor(dir === 'in' ? 'tin' : 'tout', e.suffix), ext: e, c, desc: `${dir} ${e.cur} ${amount} ...${e.suffix}` });
    e.txs.push(tx);
    check('responses', r.body.status === 'PENDING' && r.body.type === (dir === 'in' ? 'INCOMING' : 'OUTGOING'),
        `transfer-${dir}: status ${r.body.status} type ${r.body.type}, want PENDING`);
    if (e.suffix === '003') held.push(tx);
}

async function opQuote() {
    let sender = pick(liveAll());
    let cs = pick(CURS);
    if (chance(0.8)) {
        const rich = liveAll().flatMap((c) => CURS.map((cur) => [c, cur])).filter(([c, cur]) => finalBalance(custAcct(c, cur)) > 1000);
        if (rich.length) [sender, cs] = pick(rich);
    }
    let dest, rpi, cr, rc, e = null;
    const ppvCands = liveAll().filter((c) => c.id !== sender.id || chance(0.3));
    const extCands = live[sender.pi].flatMap((c) => extOf(c));
    if (extCands.length && chance(0.4)) {
        e = pick(extCands);
        rpi = sender.pi; cr = e.cur; rc = e.c;
        dest = { destinationType: 'EXTERNAL_ACCOUNT', accountId: e.id };
    } else {
        rc = pick(ppvCands.length ? ppvCands : [sender]);
        rpi = rc.pi; cr = pick(CURS);
        dest = { destinationType: 'PPV_ADDRESS', ppvAddress: rc.ppv, currencyCode: cr };
    }
    const side = chance(0.5) ? 'SENDING' : 'RECEIVING';
    const src = custAcct(sender, cs);
    const q = { pi: sender.pi, rpi, cs, cr, side, sender, rc, e, src, dst: custAcct(rc, cr) };
    // amounts chosen so that the quote can be priced and is in range (resampled, deterministic)
    let pr;
    for (let t = 0; t < 20; t++) {
        const fb = finalBalance(src);
        q.amount = side === 'SENDING' ? ri(100, Math.max(200, Math.floor(Math.min(fb, AMT[cs] * 3) * 1.1)))
            : ri(1, Math.max(1, Math.floor(AMT[cr] / 2 ** t)));
        pr = price(q);
        if (side === 'RECEIVING' && t < 12 && pr.S > fb * 1.1) continue;
        if (pr.R >= 1 && pr.S <= plan.platforms[q.pi].currencies[cs].max && pr.R <= plan.platforms[rpi].currencies[cr].max) break;
        pr = null;
    }
    curOp = `quote P${q.pi}:${sender.pcid} ${cs} -> ${e ? `external ...${e.suffix} of ${rc.pcid}` : `PPV P${rpi}:${rc.pcid}`} ${cr} ${side} ${q.amount}`;
    if (!pr) return;
    const body = { source: { accountId: sender.ints[cs] }, destination: dest, lockedCurrencySide: side, lockedCurrencyAmount: String(q.amount) };
    const mand = plan.platforms[rpi].currencies[cr].mandatory || [];
    const needCp = mand.includes('BIRTH_DATE');
    let missing = false;
    if (needCp) {
        if (chance(0.75)) body.senderCounterpartyInfo = { BIRTH_DATE: '1990-04-01' };
        else missing = true;
    } else if (chance(0.2)) body.senderCounterpartyInfo = { FULL_NAME: 'Model Sender' };
    const r = await call(P[q.pi], 'POST', '/quotes', body);
    if (missing) {
        if (!expect(r, 400, 'INVALID_REQUEST', 'POST /quotes without a mandatory counterparty field')) return;
        check('responses', J(r.body.details.missingCounterpartyFields) === '["BIRTH_DATE"]', `details ${J(r.body.details)}`);
        return;
    }
    if (!expect(r, 201, null, 'POST /quotes')) return;
    const b = r.body;
    const status = sender.kyc !== 'APPROVED' || rc.kyc === 'REJECTED' ? 'BLOCKED' : 'QUOTE_READY';
    const want = { sendingAmount: { currencyCode: cs, amountMinor: String(pr.S) }, receivingAmount: { currencyCode: cr, amountMinor: String(pr.R) },
        feesTotal: { currencyCode: cs, amountMinor: String(pr.fees) }, exchangeRate: pr.rate, status, lockedCurrencySide: side,
        lockedCurrencyAmount: String(q.amount), expiresMinusCreated: Math.min(P[q.pi].lock, P[rpi].lock) * 1000 };
    const got = { sendingAmount: b.sendingAmount, receivingAmount: b.receivingAmount, feesTotal: b.feesTotal, exchangeRate: b.exchangeRate,
        status: b.status, lockedCurrencySide: b.lockedCurrencySide, lockedCurrencyAmount: b.lockedCurrencyAmount,
        expiresMinusCreated: Date.parse(b.expiresAt) - Date.parse(b.createdAt) };
    const norm = (o) => J(Object.keys(o).sort().map((k) => [k, o[k] && typeof o[k] === 'object' ? { a: o[k].amountMinor, c: o[k].currencyCode } : o[k]]));
    check('pricing', norm(want) === norm(got), `quote ${b.quoteId}: want ${norm(want)}, got ${norm(got)} (P ${pr.P})`);
    Object.assign(q, pr, { id: b.quoteId, status, executed: false, expiresAt: Date.parse(b.expiresAt), desc: curOp });
    const tx = newTx({ id: b.transactionId, pi: q.pi, kind: e ? 'qext' : 'qppv', q, path: ['CREATED'],
        accts: e ? [src, pkey(q.pi, cs)] : [src, q.dst, pkey(q.pi, cs), pkey(rpi, cs)], desc: `quote ${q.id}`, c: sender, ext: e });
    q.tx = tx;
    if (e) e.txs.push(tx);
    quotes.set(q.id, q);
    quoteList.push(q);
}

function partyGone(q) { return q.sender.deleted || q.rc.deleted || (q.e && q.e.deleted); }

async function opExecute() {
    if (!quoteList.length) return opQuote();
    // mostly the newest quotes, sometimes any
    const q = chance(0.7) ? quoteList[quoteList.length - 1 - Math.min(quoteList.length - 1, ri(0, 3))] : pick(quoteList);
    curOp = `execute ${q.id} (${q.desc}; model: ${q.status}${q.executed ? ', executed' : ''})`;
    if (q.expiresAt - Date.now() < 60000 && !q.executed && q.status !== 'EXPIRED') return; // too close to its time
    const ready = q.status === 'QUOTE_READY' && !q.executed;
    if (partyGone(q) && !ready) {
        const r = await call(P[q.pi], 'GET', `/quotes/${q.id}`);
        if (expect(r, 200, null, 'GET /quotes/{id}')) check('finalStatuses', r.body.status === q.status, `quote ${q.id} status ${r.body.status}, model ${q.status}`);
        return;
    }
    let wantSt, wantCode;
    if (q.executed) [wantSt, wantCode] = [409, 'QUOTE_ALREADY_EXECUTED'];
    else if (q.status === 'EXPIRED') [wantSt, wantCode] = [409, 'QUOTE_EXPIRED'];
    else if (q.status === 'BLOCKED') [wantSt, wantCode] = [409, 'QUOTE_BLOCKED'];
    else if (partyGone(q)) [wantSt, wantCode] = [410, 'GONE'];
    else {
        let [lo, hi] = bounds(q.src);
        if (q.S > lo && q.S <= hi) {
            await settle(acctTxs(q.src), `settling ${q.src} before execution`);
            [lo, hi] = bounds(q.src);
        }
        if (q.S > hi) [wantSt, wantCode] = [409, 'INSUFFICIENT_FUNDS'];
        else [wantSt, wantCode] = [200, null];
    }
    const r = await call(P[q.pi], 'POST', `/quotes/${q.id}/execute`);
    touchC(q.sender);
    if (!expect(r, wantSt, wantCode, 'POST /quotes/{id}/execute')) return;
    if (wantCode === 'INSUFFICIENT_FUNDS')
        check('responses', r.body.details.requested && r.body.details.requested.amountMinor === String(q.S), `details ${J(r.body.details)}`);
    if (wantSt !== 200) return;
    q.executed = true;
    const tx = q.tx;
    if (q.e) {
        moveTo(tx, pathFor('qext', q.e.suffix));
        if (q.e.suffix === '003') held.push(tx);
        touchP(q.pi);
    } else {
        moveTo(tx, ['COMPLETED']);
        touchC(q.rc); touchP(q.pi); touchP(q.rpi);
        txCount[q.rpi]++;   // the receiving platform's own INCOMING transaction
    }
    check('responses', r.body.status === tx.path[0] && r.body.sentAmount.amountMinor === String(q.S) && r.body.fees.amountMinor === String(q.fees)
        && r.body.exchangeRate === q.rate && r.body.quoteId === q.id,
    `executed transaction: status ${r.body.status} (want ${tx.path[0]}), sent ${J(r.body.sentAmount)}, fees ${J(r.body.fees)}, rate ${r.body.exchangeRate}`);
}

async function opExpireQuote() {
    const cands = quoteList.filter((q) => !q.executed && q.status !== 'EXPIRED');
    if (!cands.length) return opQuote();
    const q = pick(cands);
    curOp = `sandbox expire ${q.tx.id} of ${q.id} (${q.status})`;
    const r = await call(P[q.pi], 'POST', `/sandbox/transactions/${q.tx.id}/expire`);
    if (!expect(r, 200, null, 'POST /sandbox/transactions/{id}/expire on a quote')) return;
    check('responses', r.body.status === 'EXPIRED', `expired quote's transaction: ${r.body.status}`);
    q.status = 'EXPIRED';
    moveTo(q.tx, ['EXPIRED']);
}

const SCEN = ['sanctions_hit', 'sender_kyc_not_approved', 'counterparty_info_incomplete'];
async function opSimulate() {
    const c = pick(liveAll());
    const cur = pick(CURS), n = ri(1, AMT[cur]), scen = pick(SCEN);
    curOp = `simulate ${scen} ${cur} ${n} for ${c.pcid} (P${c.pi})`;
    const r = await call(P[c.pi], 'POST', '/sandbox/incoming-payments/simulate', { receiverCustomerId: c.id, scenario: scen, amountMinor: n, currencyCode: cur });
    if (!expect(r, 201, null, 'POST /sandbox/incoming-payments/simulate')) return;
    check('responses', r.body.status === 'PENDING' && r.body.decisionRequired === true && r.body.type === 'INCOMING', `ack ${J(r.body)}`);
    const key = custAcct(c, cur);
    const tx = newTx({ id: r.body.transactionId, pi: c.pi, kind: 'rev', int: key, amount: n, accts: [key], path: ['PENDING'], scen, c, desc: `review ${scen} ${cur} ${n}` });
    reviews.push(tx);
}

async function opDecide() {
    if (!reviews.length) return opSimulate();
    const tx = chance(0.6) ? reviews[reviews.length - 1 - Math.min(reviews.length - 1, ri(0, 4))] : pick(reviews);
    const pending = tx.path[0] === 'PENDING';
    const act = weighted([['approve', 45], ['reject', 35], ['expire', 20]]);
    const manual = tx.scen === 'counterparty_info_incomplete';
    const withFields = chance(0.7);
    curOp = `${act} review case ${tx.id} (${tx.desc}, model ${tx.path[0]})${act === 'approve' && manual ? (withFields ? ' with counterpartyInfo' : ' without counterpartyInfo') : ''}`;
    let r;
    const cp = { senderFullLegalName: 'Ada Sender', senderCountryCode: 'DE', senderDateOfBirthOrRegistrationId: '1980-01-02', purposeOfPayment: 'gift' };
    if (act === 'expire') {
        r = await call(P[tx.pi], 'POST', `/sandbox/transactions/${tx.id}/expire`);
        if (!pending) {
            if (expect(r, 409, 'INVALID_TRANSITION', 'expire a decided case'))
                check('responses', J(r.body.details) === J({ status: tx.path[0], allowedFrom: ['PENDING'] }), `details ${J(r.body.details)}`);
            return;
        }
        if (expect(r, 200, null, 'expire a review case')) moveTo(tx, ['EXPIRED']);
        return;
    }
    if (act === 'reject') {
        r = await call(P[tx.pi], 'POST', `/transactions/${tx.id}/reject`, chance(0.5) ? { reason: 'model says no' } : undefined);
    } else {
        r = await call(P[tx.pi], 'POST', `/transactions/${tx.id}/approve`, manual && withFields ? { counterpartyInfo: cp, note: 'ok' } : undefined);
    }
    if (!pending) {
        if (expect(r, 409, 'TRANSACTION_NOT_PENDING', `${act} a case no longer pending`))
            check('responses', r.body.details.status === tx.path[0], `details ${J(r.body.details)}`);
        return;
    }
    if (act === 'reject') {
        if (expect(r, 200, null, 'reject a review case')) moveTo(tx, ['REJECTED']);
        return;
    }
    if (!manual) {
        if (expect(r, 409, 'APPROVAL_NOT_ALLOWED', 'approve a reject_only case'))
            check('responses', r.body.details.approveBlockedReason === 'reject_only', `details ${J(r.body.details)}`);
        return;
    }
    if (!withFields) {
        if (expect(r, 400, 'INVALID_REQUEST', 'approve without the missing counterparty fields'))
            check('responses', J(r.body.details.missingRequiredFields) === J(['senderFullLegalName', 'senderCountryCode', 'senderDateOfBirthOrRegistrationId', 'purposeOfPayment']),
                `details ${J(r.body.details)}`);
        return;
    }
    if (!expect(r, 200, null, 'approve a review case')) return;
    moveTo(tx, ['COMPLETED']);
    touchC(tx.c);
}

// class of a transaction for the helpers' table (decisions.md section 14)
function helperClass(tx) {
    if (tx.kind === 'tin') return 'tin';
    if (tx.kind === 'tout') return 'tout';
    if (tx.kind === 'qext') return 'qpay';
    if (tx.kind === 'qppv') return 'ppv';
    return 'rev';
}
const FROM = {
    'tin:complete': 'PENDING', 'tin:fail': 'PENDING',
    'tout:complete': 'PENDING', 'tout:fail': 'PENDING', 'tout:return': 'COMPLETED',
    'qpay:complete': 'PROCESSING', 'qpay:fail': 'PROCESSING', 'qpay:return': 'COMPLETED', 'qpay:expire': 'CREATED',
    'ppv:expire': 'CREATED', 'rev:expire': 'PENDING',
};

async function opHelperHeld() {
    const cands = held.filter((tx) => tx.path.length === 1 && (tx.path[0] === 'PENDING' || tx.path[0] === 'PROCESSING'));
    if (!cands.length) return opTransfer(chance(0.5) ? 'in' : 'out');
    const tx = pick(cands);
    const h = chance(0.6) ? 'complete' : 'fail';
    curOp = `sandbox ${h} held ${tx.kind} ${tx.id} (${tx.desc})`;
    const r = await call(P[tx.pi], 'POST', `/sandbox/transactions/${tx.id}/${h}`);
    if (tx.c) touchC(tx.c);
    if (tx.kind === 'qext') touchP(tx.pi);
    if (!expect(r, 200, null, `${h} a held transaction`)) return;
    const to = h === 'complete' ? 'COMPLETED' : 'FAILED';
    check('responses', r.body.status === to, `${h}: status ${r.body.status}, want ${to}`);
    moveTo(tx, [to]);
}

async function opHelperReturn() {
    const cands = [...txs.values()].filter((tx) => (tx.kind === 'tout' || (tx.kind === 'qext' && tx.q.executed))
        && finalOf(tx) === 'COMPLETED' && !(tx.path.includes('REFUNDED')) && !tx.c.deleted);
    if (!cands.length) return opTransfer('out');
    const tx = pick(cands);
    curOp = `sandbox return ${tx.kind} ${tx.id} (${tx.desc})`;
    await settle([tx], 'waiting to return');
    const r = await call(P[tx.pi], 'POST', `/sandbox/transactions/${tx.id}/return`);
    if (tx.c) touchC(tx.c);
    if (tx.kind === 'qext') touchP(tx.pi);
    if (!expect(r, 200, null, 'return a COMPLETED payout')) return;
    check('responses', r.body.status === 'REFUNDED' && r.body.settledAt, `return: status ${r.body.status}, settledAt ${r.body.settledAt}`);
    moveTo(tx, ['REFUNDED']);
}

async function opHelperBad() {
    const all = [...txs.values()].filter((tx) => (tx.kind !== 'rev' || tx.path[0] !== 'PENDING') && !tx.c.deleted);
    if (!all.length) return opFund();
    const tx = pick(all);
    await settle([tx], 'waiting before a disallowed helper');
    const st = finalOf(tx);
    const cls = helperClass(tx);
    const hs = ['complete', 'fail', 'return', 'expire'].filter((h) => FROM[`${cls}:${h}`] !== st);
    const h = pick(hs);
    curOp = `sandbox ${h} on ${cls} ${tx.id} (${tx.desc}) in ${st}: not allowed`;
    const r = await call(P[tx.pi], 'POST', `/sandbox/transactions/${tx.id}/${h}`);
    const from = FROM[`${cls}:${h}`];
    if (expect(r, 409, 'INVALID_TRANSITION', 'a helper from a status it does not move'))
        check('responses', J(r.body.details) === J({ status: st, allowedFrom: from ? [from] : [] }), `details ${J(r.body.details)}, want ${J({ status: st, allowedFrom: from ? [from] : [] })}`);
}

// open: a transaction that keeps its customer from being deleted
function isOpen(tx) {
    const st = finalOf(tx);
    if (st === 'CREATED' || st === 'PENDING' || st === 'PROCESSING') return true;
    return false;
}
async function opDeleteCustomer() {
    const all = liveAll();
    if (!all.length) return opCreateCustomer();
    // prefer customers that can go
    const empty = all.filter((c) => CURS.every((cur) => finalBalance(custAcct(c, cur)) === 0)
        && [...txs.values()].every((tx) => tx.c !== c || !isOpen(tx)));
    const c = empty.length && chance(0.6) ? pick(empty) : pick(all);
    const mine = [...txs.values()].filter((tx) => tx.c === c);
    await settle(mine, `settling ${c.pcid} before deletion`);
    const has = CURS.some((cur) => finalBalance(custAcct(c, cur)) !== 0) || mine.some(isOpen);
    curOp = `delete customer ${c.pcid} (P${c.pi})${has ? ', which holds money or has open transactions' : ''}`;
    const r = await call(P[c.pi], 'DELETE', `/customers/${c.id}`);
    if (has) return expect(r, 409, 'CUSTOMER_HAS_BALANCE', 'DELETE a customer with money or open transactions');
    if (!expect(r, 200, null, 'DELETE /customers/{id}')) return;
    c.deleted = true;
    live[c.pi].splice(live[c.pi].indexOf(c), 1);
    const g = await call(P[c.pi], 'GET', `/customers/${c.id}`);
    expect(g, 410, 'GONE', 'GET a deleted customer');
    const d = await call(P[c.pi], 'DELETE', `/customers/${c.id}`);
    expect(d, 410, 'GONE', 'DELETE a deleted customer again');
    const ex = c.exts.find((e) => !e.deleted);
    if (ex) {
        const x = await call(P[c.pi], 'DELETE', `/customers/external-accounts/${ex.id}?customerId=${c.id}`);
        expect(x, 410, 'GONE', 'DELETE an external account of a deleted customer');
    }
    const s = await call(P[c.pi], 'POST', '/sandbox/incoming-payments/simulate', { receiverCustomerId: c.id, scenario: 'sanctions_hit', amountMinor: 5, currencyCode: 'USD' });
    expect(s, 410, 'GONE', 'simulate for a deleted customer');
}

async function opDeleteExt() {
    // an account whose transfers and payouts all end in a final status (quotes
    // not executed yet may point at it: their execution is then 410 GONE)
    const cands = liveAll().flatMap((c) => extOf(c)).filter((e) => e.txs.every((tx) => (tx.kind === 'qext' && !tx.q.executed) || !isOpen(tx)));
    if (!cands.length) return opCreateExt();
    const e = pick(cands);
    await settle(e.txs.filter((tx) => tx.kind !== 'qext' || tx.q.executed), 'settling before deleting an external account');
    curOp = `delete external account ...${e.num} of ${e.c.pcid} (P${e.c.pi})`;
    const r = await call(P[e.c.pi], 'DELETE', `/customers/external-accounts/${e.id}?customerId=${e.c.id}`);
    if (!expect(r, 200, null, 'DELETE /customers/external-accounts/{id}')) return;
    e.deleted = true;
    const again = await call(P[e.c.pi], 'DELETE', `/customers/external-accounts/${e.id}?customerId=${e.c.id}`);
    expect(again, 404, 'NOT_FOUND', 'DELETE an external account again');
}

async function opMustFail() {
    const pi = ri(0, 2);
    const other = (pi + ri(1, 2)) % 3;
    const kind = ri(0, 9);
    let r;
    const tx = txs.size ? pick([...txs.values()]) : null;
    switch (kind) {
    case 0: curOp = 'GET an unknown transaction'; r = await call(P[pi], 'GET', `/transactions/Transaction:${fakeUuid()}`); return expect(r, 404, 'TRANSACTION_NOT_FOUND', curOp);
    case 1:
        if (!tx) return;
        curOp = `GET another platform's transaction ${tx.id}`;
        r = await call(P[(tx.pi + 1) % 3], 'GET', `/transactions/${tx.id}`); return expect(r, 404, 'TRANSACTION_NOT_FOUND', curOp);
    case 2: curOp = 'GET an unknown customer'; r = await call(P[pi], 'GET', `/customers/Customer:${fakeUuid()}`); return expect(r, 404, 'CUSTOMER_NOT_FOUND', curOp);
    case 3: curOp = 'GET an unknown quote'; r = await call(P[pi], 'GET', `/quotes/Quote:${fakeUuid()}`); return expect(r, 404, 'QUOTE_NOT_FOUND', curOp);
    case 4: curOp = 'fund an unknown internal account'; r = await call(P[pi], 'POST', `/sandbox/internal-accounts/InternalAccount:${fakeUuid()}/fund`, { amountMinor: 5 }); return expect(r, 404, 'ACCOUNT_NOT_FOUND', curOp);
    case 5: {
        const c = pick(liveAll());
        curOp = `transfer-out with amountMinor "12x" for ${c.pcid}`;
        r = await call(P[c.pi], 'POST', '/transfer-out', { source: { accountId: c.ints.USD }, destination: { accountId: `ExternalAccount:${fakeUuid()}` }, amount: { currencyCode: 'USD', amountMinor: '12x' } });
        return expect(r, 400, 'INVALID_REQUEST', curOp);
    }
    case 6: {
        const c = pick(liveAll());
        curOp = `POST /customers with an unknown property for P${c.pi}`;
        r = await call(P[c.pi], 'POST', '/customers', { platformCustomerId: `${plan.run}-x${step}`, customerType: 'INDIVIDUAL', fullName: 'x', colour: 'blue' });
        return expect(r, 400, 'INVALID_REQUEST', curOp);
    }
    case 7: curOp = 'sandbox complete on an unknown transaction'; r = await call(P[pi], 'POST', `/sandbox/transactions/Transaction:${fakeUuid()}/complete`); return expect(r, 404, 'TRANSACTION_NOT_FOUND', curOp);
    case 8: {
        if (!quoteList.length) return;
        const q = pick(quoteList);
        curOp = `execute another platform's quote ${q.id}`;
        r = await call(P[(q.pi + 1) % 3], 'POST', `/quotes/${q.id}/execute`); return expect(r, 404, 'QUOTE_NOT_FOUND', curOp);
    }
    default: {
        const c = pick(liveAll());
        curOp = `transfer-in from an unknown external account for ${c.pcid}`;
        r = await call(P[c.pi], 'POST', '/transfer-in', { source: { accountId: `ExternalAccount:${fakeUuid()}` }, destination: { accountId: c.ints.EUR }, amount: { currencyCode: 'EUR', amountMinor: '10' } });
        return expect(r, 404, 'NOT_FOUND', curOp);
    }
    }
}

async function opReadback() {
    if (!txs.size) return;
    const tx = pick([...txs.values()]);
    curOp = `GET /transactions/${tx.id} (${tx.desc})`;
    const st = await readStatus(tx);
    observe(tx, st, 'readback');
}

// --- the run --------------------------------------------------------------------------------
const OPS_TABLE = [
    [opCreateCustomer, 5], [opDupCustomer, 1], [opCreateExt, 6], [opFund, 8],
    [() => opTransfer('in'), 10], [() => opTransfer('out'), 12], [opQuote, 14], [opExecute, 12],
    [opExpireQuote, 2], [opSimulate, 4], [opDecide, 5], [opHelperHeld, 4], [opHelperReturn, 2],
    [opHelperBad, 2], [opDeleteCustomer, 2], [opDeleteExt, 2], [opMustFail, 4], [opReadback, 2],
];

const t0 = Date.now();
const digest = crypto.createHash('sha256');   // of the sequence of operations (PRNG state and kind)
for (step = 1; step <= OPS && !aborted; step++) {
    touchedC = new Set(); touchedP = new Set();
    const need = live.some((l) => l.length < 2);
    const op = need ? opCreateCustomer : weighted(OPS_TABLE);
    digest.update(`${rs}:${OPS_TABLE.findIndex(([f]) => f === op)};`);
    curOp = op.name;
    await op();
    if (aborted) break;
    if (process.env.XB_MODEL_PARANOID) for (const pi of [0, 1, 2]) touchP(pi);
    if (touchedC.size || touchedP.size) await compare(touchedC, touchedP, 'after the step');
    if (fails.balances.length + fails.statuses.length > 20) aborted = 'more than 20 balance or status mismatches';
}
note(`longest wait for a transaction to reach its final status: ${(longestWait / 1000).toFixed(1)} s`);
note(`operation sequence digest ${digest.digest('hex').slice(0, 16)} (the same for the same seed and count)`);
note(`${Math.min(step - 1, OPS)} operations in ${((Date.now() - t0) / 1000).toFixed(1)} s, ${requests} requests; ${txs.size} transactions, ${quotes.size} quotes, ${custs.size} customers`);

if (!aborted) {
    step = 'end'; curOp = 'final comparison';
    await settle([...txs.values()], 'at the end', 120);
    // every transaction's status
    const all = [...txs.values()];
    for (let i = 0; i < all.length; i += 20) {
        const part = all.slice(i, i + 20);
        const sts = await Promise.all(part.map(readStatus));
        part.forEach((tx, j) => check('finalStatuses', sts[j] === finalOf(tx), `${tx.kind} ${tx.id} (${tx.desc}) is ${sts[j]}, model ${finalOf(tx)}`));
    }
    for (let i = 0; i < quoteList.length; i += 20) {
        const part = quoteList.slice(i, i + 20);
        const rs = await Promise.all(part.map((q) => call(P[q.pi], 'GET', `/quotes/${q.id}`)));
        part.forEach((q, j) => {
            const b = rs[j].body || {};
            check('finalStatuses', b.status === q.status && (b.executedAt !== null) === q.executed,
                `quote ${q.id} (${q.desc}) is ${b.status}, executedAt ${b.executedAt}; model ${q.status}, executed ${q.executed}`);
        });
    }
    // every balance
    for (const pi of [0, 1, 2]) {
        const cs = live[pi];
        for (let i = 0; i < cs.length; i += 20) {
            const part = cs.slice(i, i + 20);
            const ms = await Promise.all(part.map((c) => customerBalances(pi, c.id)));
            part.forEach((c, j) => {
                for (const cur of CURS) {
                    const k = custAcct(c, cur);
                    const g = ms[j] ? ms[j].get(k) : undefined;
                    check('finalBalances', g === finalBalance(k), `${k} (${c.pcid}) is ${g}, model ${finalBalance(k)}`);
                }
            });
        }
        const pm = await platformBalances(pi);
        for (const cur of CURS) {
            const k = pkey(pi, cur);
            const g = pm ? (pm.get(k) || 0) : undefined;
            check('finalBalances', g === finalBalance(k), `platform ${k} is ${g}, model ${finalBalance(k)}`);
        }
        const r = await call(P[pi], 'GET', '/transactions?limit=1');
        check('counts', r.status === 200 && r.body.totalCount === txCount[pi], `P${pi} lists ${r.body && r.body.totalCount} transactions, model ${txCount[pi]}`);
    }
}

for (const k of Object.keys(KINDS)) {
    if (aborted && fails[k].length === 0 && (k.startsWith('final') || k === 'counts')) {
        out(`not ok|${KINDS[k]}|not reached: the run stopped at ${aborted} (seed ${SEED})`);
        continue;
    }
    if (fails[k].length === 0) out(`ok|${KINDS[k]} (${counts[k]} checks)`);
    else out(`not ok|${KINDS[k]}|${fails[k].length} of ${counts[k]} failed, first: ${fails[k][0]}${fails[k].length > 1 ? ` ... last: ${fails[k][fails[k].length - 1]}` : ''}`);
}
for (const [k, v] of [...seen].sort()) note(`covered ${String(v).padStart(5)} x ${k}`);
note(`seed ${SEED}: ${aborted ? `stopped: ${aborted}` : 'run complete'}; ${((Date.now() - t0) / 1000).toFixed(1)} s in all`);
