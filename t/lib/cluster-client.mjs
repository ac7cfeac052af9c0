#!/usr/bin/env node
// t/lib/cluster-client.mjs - one client of t/88-cluster.t: sends transfers,
// one at a time over one keep-alive connection, until told to stop, and
// repeats a request whose answer says nothing was decided yet, with the
// same Idempotency-Key, until it gets one.
//
//   node cluster-client.mjs --plan FILE --client N --out FILE --stop FILE
//        [--seed N] [--max-seconds S] [--pause-ms MS] [--give-up-s S]
//
// --plan: JSON {"base": URL, "id": ..., "secret": ..., "run": PREFIX,
//   "customers": [{"int": INTERNAL_ACCOUNT_ID, "ok": EXT_ID, "fail": EXT_ID,
//   "ret": EXT_ID}, ...]}.  Each request is a random transfer-in (45%) or
//   transfer-out of 1 to 5000 cents for a random customer, to or from its
//   external account ending 001 (70%: completes), 002 (15%: fails) or 005
//   (15%: a payout that is returned), with the key RUN-cN-SEQ.
//
// A request is repeated (100 ms, then 200, then 300 ms apart) while its
// answer is no answer at all (connection refused or reset, timeout: status
// 0), 500, 502, 503, 504, or 409 IDEMPOTENCY_KEY_IN_USE (the key's first
// attempt still runs, or died holding its claim until the lease passes).
// Any other answer decides it.  A request still undecided after
// --give-up-s (120) seconds is recorded as such and the client goes on.
//
// The client stops taking new requests once the --stop file exists or
// --max-seconds (300) passed, finishes the one it is on, and writes --out:
// one JSON line per attempt, in order:
//   {"c", "seq", "key", "kind" ("in"|"out"), "cust", "ext" ("ok"|"fail"|
//    "ret"), "amount", "attempt" (1, 2, ...), "t0", "t1" (epoch ms, sent and
//    answered), "status", "code" (error code or null), "replayed" (bool),
//    "tx" (transactionId of a 201, else null), "rid" (X-Request-Id or null),
//    "final" (bool: this attempt decided the request, or it was given up)}
// Exit status 0 whatever the answers; 2 on bad arguments.
import fs from 'node:fs';
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';

function parseArgs(argv) {
    const o = { seed: Date.now() % 2147483647, maxSeconds: 300, pauseMs: 0, giveUpS: 120 };
    for (let i = 2; i < argv.length; i += 2) {
        const k = argv[i], v = argv[i + 1];
        if (v === undefined) usage(`${k} needs a value`);
        switch (k) {
        case '--plan': o.plan = v; break;
        case '--client': o.client = Number(v); break;
        case '--out': o.out = v; break;
        case '--stop': o.stop = v; break;
        case '--seed': o.seed = Number(v); break;
        case '--max-seconds': o.maxSeconds = Number(v); break;
        case '--pause-ms': o.pauseMs = Number(v); break;
        case '--give-up-s': o.giveUpS = Number(v); break;
        default: usage(`unknown option ${k}`);
        }
    }
    if (!o.plan || !Number.isInteger(o.client) || !o.out || !o.stop) usage('missing option');
    return o;
}

function usage(msg) {
    process.stderr.write(`cluster-client: ${msg}\nusage: cluster-client.mjs --plan FILE --client N --out FILE --stop FILE [--seed N] [--max-seconds S] [--pause-ms MS] [--give-up-s S]\n`);
    process.exit(2);
}

// A small deterministic generator (mulberry32), so a seed replays a plan.
function rng(seed) {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

const opt = parseArgs(process.argv);
const plan = JSON.parse(fs.readFileSync(opt.plan, 'utf8'));
const base = new URL(plan.base);
const auth = 'Basic ' + Buffer.from(`${plan.id}:${plan.secret}`).toString('base64');
const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
const rand = rng(opt.seed + 7919 * opt.client);
const lines = [];

// One HTTP request; resolves {status, body, headers} (status 0: no answer).
function post(path, key, body) {
    return new Promise((resolve) => {
        const data = Buffer.from(JSON.stringify(body));
        const req = https.request({
            host: base.hostname, port: base.port, path, method: 'POST', agent,
            headers: {
                Authorization: auth, 'Content-Type': 'application/json',
                'Content-Length': data.length, 'Idempotency-Key': key,
            },
            timeout: 30000,
        }, (res) => {
            const chunks = [];
            res.on('data', (c) => chunks.push(c));
            res.on('end', () => resolve({
                status: res.statusCode, body: Buffer.concat(chunks).toString('utf8'),
                headers: res.headers,
            }));
            res.on('error', () => resolve({ status: 0, body: '', headers: {} }));
        });
        req.on('timeout', () => req.destroy(new Error('timeout')));
        req.on('error', () => resolve({ status: 0, body: '', headers: {} }));
        req.end(data);
    });
}

function pick() {
    const cust = Math.floor(rand() * plan.customers.length);
    const kind = rand() < 0.45 ? 'in' : 'out';
    const r = rand();
    const ext = r < 0.70 ? 'ok' : r < 0.85 ? 'fail' : 'ret';
    const amount = 1 + Math.floor(rand() * 5000);
    const c = plan.customers[cust];
    const amt = { currencyCode: 'USD', amountMinor: String(amount) };
    const body = kind === 'in'
        ? { source: { accountId: c[ext] }, destination: { accountId: c.int }, amount: amt }
        : { source: { accountId: c.int }, destination: { accountId: c[ext] }, amount: amt };
    return { kind, cust, ext, amount, path: kind === 'in' ? '/transfer-in' : '/transfer-out', body };
}

function undecided(status, code) {
    return status === 0 || status === 500 || status === 502 || status === 503 ||
        status === 504 || (status === 409 && code === 'IDEMPOTENCY_KEY_IN_USE');
}

const started = Date.now();
const stopAt = started + opt.maxSeconds * 1000;
for (let seq = 0; ; seq++) {
    if (Date.now() >= stopAt || fs.existsSync(opt.stop)) break;
    const r = pick();
    const key = `${plan.run}-c${opt.client}-${seq}`;
    const first = Date.now();
    for (let attempt = 1; ; attempt++) {
        const t0 = Date.now();
        const a = await post(r.path, key, r.body);
        const t1 = Date.now();
        let j = null;
        try { j = JSON.parse(a.body); } catch { j = null; }
        const code = j && typeof j.code === 'string' ? j.code : null;
        const again = undecided(a.status, code);
        const giveUp = again && t1 - first > opt.giveUpS * 1000;
        lines.push(JSON.stringify({
            c: opt.client, seq, key, kind: r.kind, cust: r.cust, ext: r.ext, amount: r.amount,
            attempt, t0, t1, status: a.status, code,
            replayed: a.headers['idempotent-replayed'] === 'true',
            tx: a.status === 201 && j ? j.transactionId ?? null : null,
            rid: a.headers['x-request-id'] ?? null, final: !again || giveUp,
        }));
        if (!again || giveUp) break;
        await sleep(Math.min(300, 100 * attempt));
    }
    if (opt.pauseMs > 0) await sleep(opt.pauseMs);
}
fs.writeFileSync(opt.out, lines.length ? lines.join('\n') + '\n' : '');
agent.destroy();
