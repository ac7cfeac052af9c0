#!/usr/bin/env node
// t/lib/oas-validate.mjs: the response validator of the API suites.
//
// One process serves a whole test run.  It loads the OpenAPI document
// (openapi/openapi.json) once, listens on 127.0.0.1 on a free port and
// writes that port to --port-file.  t/lib/oas.sh asks it about every
// response a suite receives:
//
//   POST /check    {"method", "path", "status", "body", "headers"}, or the
//                  same framed (Content-Type application/x-xb-check, see
//                  framed())
//                  path as requested (query string allowed), status a
//                  number, body the raw response body, headers the raw
//                  response header block.  Answers text/plain: a first
//                  line "ok KEY" or "not ok KEY" (KEY: method, path
//                  template and status), then one line per problem; the
//                  header X-Body-Object says whether the body is one JSON
//                  object ("yes" or "no").
//   GET /summary   the counts so far, as JSON (see summary()).
//   POST /quit     answers the summary and exits.
//
// A concrete path is mapped to the document's path template whose literal
// segments match the most segments (literal segments beat {parameters}),
// like the server's router.  The operation is found by method and the
// response by status; an operation or status the document does not
// describe is a failure.  Requests to paths no template matches, or with a
// method a matched path does not have, must get one of the answers
// described under the document's `x-unmatched-requests` (404 or 405, or
// what nginx may answer to any request).  The body must
// validate against the response's application/json schema (JSON Schema
// 2020-12, with ajv), and the headers the response declares must be
// present when required and match their schemas.
//
// Options: --spec FILE (default <repo>/openapi/openapi.json), --port-file
// FILE (required), --parent-pid PID (exit when that process is gone),
// --report FILE (write the coverage table there at exit), --tools DIR
// (where node_modules with ajv lives, default <repo>/tools).

import { createServer } from 'node:http';
import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');

function parseArgs(argv) {
  const opt = {
    spec: process.env.XB_OAS_SPEC || resolve(repo, 'openapi', 'openapi.json'),
    tools: process.env.XB_TOOLS_DIR || resolve(repo, 'tools'),
    portFile: null,
    parentPid: 0,
    report: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) fatal(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--spec') opt.spec = resolve(next());
    else if (a === '--port-file') opt.portFile = resolve(next());
    else if (a === '--parent-pid') opt.parentPid = Number(next());
    else if (a === '--report') opt.report = resolve(next());
    else if (a === '--tools') opt.tools = resolve(next());
    else fatal(`unknown argument ${a}`);
  }
  if (!opt.portFile) fatal('--port-file is required');
  return opt;
}

function fatal(msg) {
  process.stderr.write(`oas-validate: ${msg}\n`);
  process.exit(2);
}

const opt = parseArgs(process.argv.slice(2));
const require = createRequire(resolve(opt.tools, 'package.json'));
let Ajv2020, addFormats;
try {
  Ajv2020 = require('ajv/dist/2020').default;
  addFormats = require('ajv-formats').default;
} catch (e) {
  fatal(`cannot load ajv from ${opt.tools}/node_modules (run scripts/dev openapi): ${e.message}`);
}

let doc;
try {
  doc = JSON.parse(readFileSync(opt.spec, 'utf8'));
} catch (e) {
  fatal(`cannot read ${opt.spec}: ${e.message}`);
}
if (typeof doc.paths !== 'object' || doc.paths === null) fatal(`${opt.spec} has no paths`);

// ajv does not take an OpenAPI discriminator with a mapping.  A schema
// with oneOf and discriminator.mapping is validated as the equivalent
// "the property is one of the mapped values, and the object matches the
// schema mapped to its value", which also keeps the error messages to the
// variant that applies.  The document is rewritten in memory only.
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

// The whole document is one schema resource; response schemas are reached
// by JSON pointers into it, so their internal $refs resolve against it.
const DOC_ID = 'https://xborder.invalid/openapi.json';
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);
const schemaDoc = structuredClone(doc);
rewriteDiscriminators(schemaDoc);
ajv.addSchema(schemaDoc, DOC_ID);

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

// --- JSON pointers --------------------------------------------------------

function esc(token) {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

function unesc(token) {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

function atPointer(pointer) {
  if (!pointer.startsWith('#')) throw new Error(`not a local reference: ${pointer}`);
  let node = doc;
  for (const raw of pointer.slice(1).split('/').slice(1)) {
    const key = unesc(raw);
    if (node === null || typeof node !== 'object' || !(key in node))
      throw new Error(`dangling reference ${pointer}`);
    node = node[key];
  }
  return node;
}

// Follows $ref chains of a component (response, header); returns the
// object and its pointer.
function deref(node, pointer) {
  for (let n = 0; node && typeof node === 'object' && typeof node.$ref === 'string'; n++) {
    if (n > 20) throw new Error(`reference loop at ${pointer}`);
    pointer = node.$ref;
    node = atPointer(pointer);
  }
  return { node, pointer };
}

// --- path templates -------------------------------------------------------

const templates = Object.keys(doc.paths).map((t, order) => ({
  template: t,
  order,
  segs: t === '/' ? [] : t.slice(1).split('/'),
}));

function requestSegments(path) {
  let p = path;
  const cut = p.search(/[?#]/);
  if (cut >= 0) p = p.slice(0, cut);
  if (!p.startsWith('/')) return null;
  if (p === '/') return [];
  const segs = p.slice(1).split('/');
  const out = [];
  for (const s of segs) {
    if (s === '') return null;
    // Like the router: a segment that cannot be decoded (a bad escape, an
    // encoded NUL) matches no literal segment but still fills a parameter.
    let d;
    try {
      d = decodeURIComponent(s);
    } catch {
      d = '\u0001';
    }
    out.push(d.includes('\u0000') ? '\u0001' : d);
  }
  return out;
}

function matchTemplate(path) {
  const segs = requestSegments(path);
  if (segs === null) return null;
  let best = null;
  let bestScore = -1;
  for (const t of templates) {
    if (t.segs.length !== segs.length) continue;
    let score = 0;
    let ok = true;
    for (let i = 0; i < segs.length; i++) {
      const ts = t.segs[i];
      if (ts.startsWith('{') && ts.endsWith('}')) continue;
      if (ts !== segs[i]) {
        ok = false;
        break;
      }
      score++;
    }
    if (ok && score > bestScore) {
      best = t;
      bestScore = score;
    }
  }
  return best;
}

// --- validation -----------------------------------------------------------

const compiled = new Map();

function validatorFor(pointer) {
  let v = compiled.get(pointer);
  if (!v) {
    v = ajv.compile({ $ref: DOC_ID + pointer });
    compiled.set(pointer, v);
  }
  return v;
}

function parseHeaders(raw) {
  const h = new Map();
  for (const line of String(raw || '').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i <= 0 || /^HTTP\//.test(line)) continue;
    const name = line.slice(0, i).trim().toLowerCase();
    const value = line.slice(i + 1).trim();
    h.set(name, h.has(name) ? `${h.get(name)}, ${value}` : value);
  }
  return h;
}

function ajvErrors(errors) {
  return (errors || []).slice(0, 20).map((e) => {
    const where = e.instancePath || '(root)';
    const extra = e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : '';
    return `${where} ${e.message}${extra}  [schema ${e.schemaPath}]`;
  });
}

// Checks a response against a response object of the document (given by
// pointer, possibly a $ref).  Returns a list of problems.
function checkResponse(respPointer, body, rawHeaders) {
  const problems = [];
  const { node: resp, pointer } = deref(atPointer(respPointer), respPointer);
  const headers = parseHeaders(rawHeaders);
  for (const [name, h0] of Object.entries(resp.headers || {})) {
    const { node: h, pointer: hp } = deref(h0, `${pointer}/headers/${esc(name)}`);
    const value = headers.get(name.toLowerCase());
    if (value === undefined) {
      if (h.required) problems.push(`header ${name} is missing`);
      continue;
    }
    if (h.schema) {
      let v = value;
      const t = h.schema.type;
      if ((t === 'integer' || t === 'number') && /^-?[0-9]+(\.[0-9]+)?$/.test(value)) v = Number(value);
      const validate = validatorFor(`${hp}/schema`);
      if (!validate(v)) problems.push(`header ${name}: '${value}' ${ajvErrors(validate.errors).join('; ')}`);
    }
  }
  const media = resp.content && resp.content['application/json'];
  if (!media) {
    if (body !== '') problems.push('the document describes no body for this response, but one came');
    return problems;
  }
  let json;
  try {
    json = JSON.parse(body);
  } catch (e) {
    problems.push(`the body is not JSON: ${e.message}`);
    return problems;
  }
  if (media.schema) {
    const validate = validatorFor(`${pointer}/content/application~1json/schema`);
    if (!validate(json)) problems.push(...ajvErrors(validate.errors));
  }
  return problems;
}

// --- counts -----------------------------------------------------------------

const counts = new Map(); // "METHOD TEMPLATE STATUS" -> {n, failed}
let unmatched = 0;
let failures = 0;
let total = 0;
const failedSamples = [];

function count(key, ok, described) {
  total++;
  if (!ok) failures++;
  if (!described) {
    unmatched++;
    return;
  }
  const c = counts.get(key) || { n: 0, failed: 0 };
  c.n++;
  if (!ok) c.failed++;
  counts.set(key, c);
}

function check(req) {
  const method = String(req.method || '').toUpperCase();
  const path = String(req.path || '');
  const status = Number(req.status);
  const body = typeof req.body === 'string' ? req.body : '';
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    const key = `${method} ${path} ${req.status}`;
    count(key, false, false);
    return { ok: false, key, problems: ['no HTTP response (status ' + req.status + ')'] };
  }
  const t = matchTemplate(path);
  const unm = doc['x-unmatched-requests'] || {};
  // A request no operation covers: x-unmatched-requests.<kind> maps the
  // statuses it may get to their responses.
  const unmatchedCheck = (kind, key, what) => {
    const map = unm[kind] || {};
    const problems = String(status) in map
      ? checkResponse(`#/x-unmatched-requests/${kind}/${status}`, body, req.headers)
      : [`${what}: expected one of ${Object.keys(map).join(', ') || '(none described)'}, got ${status}`];
    count(key, problems.length === 0, false);
    return { ok: problems.length === 0, key, problems };
  };
  if (!t) return unmatchedCheck('unknownPath', `${method} (no such path) ${status}`, `no path template matches ${path}`);
  const item = doc.paths[t.template];
  const m = method.toLowerCase();
  if (!METHODS.includes(m) || !item[m])
    return unmatchedCheck('otherMethod', `${method} ${t.template} (no such operation) ${status}`,
      `${t.template} has no ${method} operation`);
  const key = `${method} ${t.template} ${status}`;
  const responses = item[m].responses || {};
  let code = String(status);
  if (!(code in responses)) {
    const range = `${String(status)[0]}XX`;
    code = range in responses ? range : 'default' in responses ? 'default' : null;
  }
  let problems;
  if (code === null) {
    problems = [`${method} ${t.template} does not describe status ${status} (it has ${Object.keys(responses).join(', ')})`];
  } else {
    try {
      problems = checkResponse(`#/paths/${esc(t.template)}/${m}/responses/${esc(code)}`, body, req.headers);
    } catch (e) {
      problems = [`cannot validate: ${e.message}`];
    }
  }
  count(key, problems.length === 0, true);
  return { ok: problems.length === 0, key, problems };
}

function summary() {
  const ops = new Set();
  let described = 0;
  for (const [key, c] of counts) {
    ops.add(key.slice(0, key.lastIndexOf(' ')));
    described += c.n;
  }
  const all = [];
  for (const t of templates)
    for (const m of METHODS) if (doc.paths[t.template][m]) all.push(`${m.toUpperCase()} ${t.template}`);
  const lines = [
    `openapi: validated ${total} responses across ${ops.size} operations, ${counts.size} (operation, status) pairs`,
    `openapi: ${described} to described operations, ${unmatched} to paths or methods the API does not have (404/405)`,
    `openapi: ${failures} responses did not match the description`,
  ];
  const never = all.filter((o) => !ops.has(o));
  if (never.length) lines.push(`openapi: operations never exercised: ${never.join(', ')}`);
  return {
    responses: total,
    operations: ops.size,
    pairs: counts.size,
    described,
    unmatched,
    failures,
    documentOperations: all.length,
    neverExercised: never,
    lines,
    counts: Object.fromEntries([...counts].sort()),
    failedSamples,
  };
}

function writeReport() {
  if (!opt.report) return;
  const s = summary();
  const rows = Object.entries(s.counts).map(([k, c]) => `${String(c.n).padStart(6)} ${c.failed ? `${c.failed} FAILED ` : ''}${k}`);
  try {
    writeFileSync(opt.report, [...s.lines, '', ...rows, ''].join('\n'));
  } catch (e) {
    process.stderr.write(`oas-validate: cannot write ${opt.report}: ${e.message}\n`);
  }
}

function shutdown(code) {
  writeReport();
  process.exit(code);
}

// --- the server ---------------------------------------------------------------

// The framed form of a check (what t/lib/oas.sh sends, so that it needs no
// jq to build JSON): four lines (method, status, the byte lengths of the
// path and of the header block), then the path, the header block and the
// body, as raw bytes.
function framed(raw) {
  const head = [];
  let at = 0;
  for (let i = 0; i < 4; i++) {
    const nl = raw.indexOf(10, at);
    if (nl < 0) throw new Error('framed check: short header');
    head.push(raw.subarray(at, nl).toString('latin1'));
    at = nl + 1;
  }
  const [method, status, plen, hlen] = head;
  const pl = Number(plen), hl = Number(hlen);
  if (!Number.isInteger(pl) || !Number.isInteger(hl) || at + pl + hl > raw.length) {
    throw new Error('framed check: bad lengths');
  }
  return {
    method,
    status: Number(status),
    path: raw.subarray(at, at + pl).toString('utf8'),
    headers: raw.subarray(at + pl, at + pl + hl).toString('utf8'),
    body: raw.subarray(at + pl + hl).toString('utf8'),
  };
}

// Whether a response body is one JSON object: what t/lib/api.sh asserts of
// every response (X-Body-Object on the answer to /check), so that it needs
// no jq per response.
function bodyIsObject(body) {
  try {
    const v = JSON.parse(body);
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  } catch {
    return false;
  }
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const send = (status, type, text) => {
      res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    };
    try {
      if (req.method === 'POST' && req.url === '/check') {
        const raw = Buffer.concat(chunks);
        const c = /x-xb-check/.test(req.headers['content-type'] || '')
          ? framed(raw) : JSON.parse(raw.toString('utf8'));
        const r = check(c);
        if (!r.ok && failedSamples.length < 50) failedSamples.push({ key: r.key, problems: r.problems });
        res.setHeader('X-Body-Object', bodyIsObject(c.body) ? 'yes' : 'no');
        send(200, 'text/plain; charset=utf-8', [`${r.ok ? 'ok' : 'not ok'} ${r.key}`, ...r.problems].join('\n') + '\n');
      } else if (req.method === 'GET' && req.url === '/summary') {
        send(200, 'application/json', JSON.stringify(summary(), null, 2) + '\n');
      } else if (req.method === 'POST' && req.url === '/quit') {
        res.on('finish', () => shutdown(0));
        send(200, 'application/json', JSON.stringify(summary(), null, 2) + '\n');
      } else {
        send(404, 'text/plain', 'not found\n');
      }
    } catch (e) {
      send(400, 'text/plain', `not ok (bad request to the validator: ${e.message})\n`);
    }
  });
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const tmp = `${opt.portFile}.${process.pid}`;
  writeFileSync(tmp, `${port}\n`);
  renameSync(tmp, opt.portFile);
  process.stderr.write(`oas-validate: ${opt.spec} on 127.0.0.1:${port} (pid ${process.pid})\n`);
});

process.on('SIGTERM', () => shutdown(0));
process.on('SIGINT', () => shutdown(0));
process.on('SIGHUP', () => shutdown(0));

if (opt.parentPid > 0) {
  setInterval(() => {
    try {
      process.kill(opt.parentPid, 0);
    } catch {
      shutdown(0);
    }
  }, 2000).unref();
}
