#!/usr/bin/env node
// t/lib/webhook-receiver.mjs - a webhook endpoint for the test suites
// (t/94..97): a small HTTP server on 127.0.0.1 that records every request
// and answers as the test told it to, path by path.
//
//   node webhook-receiver.mjs --port-file FILE --log FILE [--parent-pid PID]
//
// It listens on an ephemeral port (written to --port-file once listening)
// and appends one JSON line per request to --log:
//   {"seq", "method", "path", "url", "receivedAt" (epoch ms, when the whole
//    body was in), "headers" (lower-cased names), "body" (the raw body as a
//    string), "bodyB64" (the exact bytes), "answered" (status or "hang")}
//
// What a request gets depends on the longest configured path prefix it
// starts with (unconfigured: 200 with body "ok").  The test sets a prefix's
// behaviour, without restarting the receiver, with
//   POST /_control {"path": "/a", "codes": [500, 200], "hang": false,
//                   "dedupe": false, "body": "text", "bodyB64": "...",
//                   "delayMs": 0, "location": null}
// (every field but path optional; a new setting replaces the old one and
// restarts its codes):
//   codes    statuses consumed in order, the last one repeats (default [200])
//   hang     never answer (the socket stays open until the client leaves)
//   dedupe   200 the first time an event id ("id" of the JSON body) is seen
//            under this prefix, 409 after (codes are then ignored)
//   body     the response body (default "ok"); bodyB64 gives exact bytes
//   location a Location header for the answers (a redirect)
//   delayMs  answer only after this many milliseconds
// The control requests themselves are not logged.  POST /_control/reset
// forgets every setting; GET /_control/health answers 200.
// Stops on SIGTERM/SIGINT (closing every open socket), and when the
// --parent-pid process is gone.
//
// Second use, no server:
//   node webhook-receiver.mjs --validate SCHEMA [--spec FILE] [--tools DIR] <LINES
// validates each line of stdin (a JSON document, e.g. a recorded event
// body) against components.schemas.SCHEMA of the OpenAPI document (default
// <repo>/openapi/openapi.json; ajv from <repo>/tools/node_modules, as
// t/lib/oas-validate.mjs) and prints one line per input: "ok N" or
// "not ok N: problems".  Exit 0 when every line validated, 1 if not, 2
// when it could not check.

import http from 'node:http';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

function arg(name) {
    const i = process.argv.indexOf(name);
    return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : null;
}

if (arg('--validate')) {
    validateMode(arg('--validate'));
} else {
    serve();
}

// An OpenAPI discriminator with a mapping, as t/lib/oas-validate.mjs
// rewrites it for ajv: the property is one of the mapped values and the
// object matches the schema mapped to its value.
function rewriteDiscriminators(node) {
    if (Array.isArray(node)) {
        node.forEach(rewriteDiscriminators);
        return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const v of Object.values(node)) rewriteDiscriminators(v);
    const d = node.discriminator;
    if (d && typeof d === 'object' && d.mapping && Array.isArray(node.oneOf)) {
        const prop = d.propertyName;
        const values = Object.keys(d.mapping);
        delete node.oneOf;
        delete node.discriminator;
        node.type = 'object';
        node.required = [prop];
        node.properties = { [prop]: { enum: values } };
        node.allOf = values.map((v) => ({
            if: { properties: { [prop]: { const: v } } },
            then: { $ref: d.mapping[v] },
        }));
    }
}

function validateMode(name) {
    const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
    const spec = arg('--spec') || resolve(repo, 'openapi', 'openapi.json');
    const tools = arg('--tools') || process.env.XB_TOOLS_DIR || resolve(repo, 'tools');
    let Ajv2020, addFormats, doc;
    try {
        const require = createRequire(resolve(tools, 'package.json'));
        Ajv2020 = require('ajv/dist/2020').default;
        addFormats = require('ajv-formats').default;
        doc = JSON.parse(fs.readFileSync(spec, 'utf8'));
    } catch (e) {
        process.stdout.write(`cannot check: ${e.message}\n`);
        process.exit(2);
    }
    if (!doc.components || !doc.components.schemas || !doc.components.schemas[name]) {
        process.stdout.write(`cannot check: ${spec} has no components.schemas.${name}\n`);
        process.exit(2);
    }
    const DOC_ID = 'https://xborder.invalid/openapi.json';
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(ajv);
    rewriteDiscriminators(doc);
    ajv.addSchema(doc, DOC_ID);
    const validate = ajv.compile({ $ref: `${DOC_ID}#/components/schemas/${name}` });
    const lines = fs.readFileSync(0, 'utf8').split('\n').filter((l) => l.trim() !== '');
    let bad = 0;
    lines.forEach((l, i) => {
        let v;
        try {
            v = JSON.parse(l);
        } catch (e) {
            bad++;
            process.stdout.write(`not ok ${i + 1}: not JSON: ${e.message}\n`);
            return;
        }
        if (validate(v)) {
            process.stdout.write(`ok ${i + 1}\n`);
        } else {
            bad++;
            const errs = validate.errors.slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message}` +
                (e.params && e.params.additionalProperty ? ` (${e.params.additionalProperty})` : ''));
            process.stdout.write(`not ok ${i + 1}: ${errs.join('; ')}\n`);
        }
    });
    process.exit(bad ? 1 : 0);
}

function serve() {
    const portFile = arg('--port-file');
    const logFile = arg('--log');
    const parentPid = arg('--parent-pid');
    if (!portFile || !logFile) {
        process.stderr.write('usage: webhook-receiver.mjs --port-file FILE --log FILE [--parent-pid PID]\n');
        process.exit(2);
    }

    const settings = new Map(); // prefix -> {codes, next, hang, dedupe, seen, body, delayMs}
    const sockets = new Set();
    let seq = 0;

    function behaviour(path) {
        let best = null;
        for (const [prefix, s] of settings) {
            if (path.startsWith(prefix) && (best === null || prefix.length > best.prefix.length)) {
                best = { prefix, s };
            }
        }
        return best ? best.s : null;
    }

    function sendJson(res, status, obj) {
        const b = Buffer.from(JSON.stringify(obj));
        res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': b.length });
        res.end(b);
    }

    function control(req, res, raw) {
        const path = req.url.split('?')[0];
        if (path === '/_control/health') {
            return sendJson(res, 200, { ok: true, settings: settings.size });
        }
        if (path === '/_control/reset' && req.method === 'POST') {
            settings.clear();
            return sendJson(res, 200, { ok: true });
        }
        if (path !== '/_control' || req.method !== 'POST') {
            return sendJson(res, 404, { error: 'unknown control request' });
        }
        let c;
        try {
            c = JSON.parse(raw.toString('utf8'));
        } catch (e) {
            return sendJson(res, 400, { error: 'bad JSON: ' + e.message });
        }
        if (typeof c !== 'object' || c === null || typeof c.path !== 'string' || !c.path.startsWith('/')) {
            return sendJson(res, 400, { error: 'path (starting with /) is required' });
        }
        if (c.path.startsWith('/_control')) {
            return sendJson(res, 400, { error: 'cannot configure /_control' });
        }
        const codes = c.codes === undefined ? [200] : c.codes;
        if (!Array.isArray(codes) || codes.length === 0 ||
            !codes.every((n) => Number.isInteger(n) && n >= 100 && n <= 599)) {
            return sendJson(res, 400, { error: 'codes must be a non-empty array of HTTP statuses' });
        }
        let body = Buffer.from('ok');
        if (typeof c.bodyB64 === 'string') body = Buffer.from(c.bodyB64, 'base64');
        else if (typeof c.body === 'string') body = Buffer.from(c.body, 'utf8');
        settings.set(c.path, {
            codes,
            next: 0,
            hang: c.hang === true,
            dedupe: c.dedupe === true,
            seen: new Set(),
            body,
            delayMs: Number.isInteger(c.delayMs) && c.delayMs > 0 ? c.delayMs : 0,
            location: typeof c.location === 'string' ? c.location : null,
        });
        return sendJson(res, 200, { ok: true, path: c.path });
    }

    function handle(req, res, raw) {
        const path = req.url.split('?')[0];
        const s = behaviour(path);
        let answered;
        if (s && s.hang) {
            answered = 'hang';
        } else if (s && s.dedupe) {
            let id = null;
            try {
                const j = JSON.parse(raw.toString('utf8'));
                if (j && typeof j.id === 'string') id = j.id;
            } catch (e) {
                id = null;
            }
            if (id === null) {
                answered = 400;
            } else if (s.seen.has(id)) {
                answered = 409;
            } else {
                s.seen.add(id);
                answered = 200;
            }
        } else if (s) {
            answered = s.codes[Math.min(s.next, s.codes.length - 1)];
            s.next++;
        } else {
            answered = 200;
        }
        const headers = {};
        for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = v;
        const rec = {
            seq: ++seq,
            method: req.method,
            path,
            url: req.url,
            receivedAt: Date.now(),
            headers,
            body: raw.toString('utf8'),
            bodyB64: raw.toString('base64'),
            answered,
        };
        fs.appendFileSync(logFile, JSON.stringify(rec) + '\n');
        if (answered === 'hang') return; // the socket stays open
        const body = s ? s.body : Buffer.from('ok');
        const reply = () => {
            if (res.destroyed || res.writableEnded) return;
            const h = { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': body.length };
            if (s && s.location) h.Location = s.location;
            res.writeHead(answered, h);
            res.end(body);
        };
        if (s && s.delayMs > 0) setTimeout(reply, s.delayMs);
        else reply();
    }

    const server = http.createServer((req, res) => {
        const chunks = [];
        req.on('data', (c) => chunks.push(c));
        req.on('end', () => {
            const raw = Buffer.concat(chunks);
            if (req.url.startsWith('/_control')) control(req, res, raw);
            else handle(req, res, raw);
        });
        req.on('error', () => {});
    });
    // Hanging answers must not be cut short by the server's own timeouts.
    server.requestTimeout = 0;
    server.headersTimeout = 60000;
    server.timeout = 0;
    server.keepAliveTimeout = 5000;
    server.on('connection', (sock) => {
        sockets.add(sock);
        sock.on('close', () => sockets.delete(sock));
    });

    function stop() {
        server.close();
        for (const s of sockets) s.destroy();
        setTimeout(() => process.exit(0), 50).unref();
    }
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);

    if (parentPid) {
        setInterval(() => {
            try {
                process.kill(Number(parentPid), 0);
            } catch (e) {
                stop();
            }
        }, 1000).unref();
    }

    fs.writeFileSync(logFile, '', { flag: 'a' });
    server.listen(0, '127.0.0.1', () => {
        const tmp = portFile + '.tmp';
        fs.writeFileSync(tmp, String(server.address().port) + '\n');
        fs.renameSync(tmp, portFile);
    });
}
