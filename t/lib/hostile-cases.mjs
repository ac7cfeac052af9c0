#!/usr/bin/env node
// t/lib/hostile-cases.mjs: the cases of t/99-hostile-input.t, generated
// from the operations of openapi/openapi.json, and their checking.
//
//   node hostile-cases.mjs ops [--spec FILE]
//       prints the operation table, one "METHOD /path/template" a line.
//   node hostile-cases.mjs gen --dir DIR --base URL --authz VALUE
//        --fixtures FILE [--spec FILE]
//       writes DIR/cases.jsonl (one case a line), DIR/curl.cfg (a curl
//       config with one transfer per case, for curl --parallel), the
//       request bodies under DIR/b/ and makes DIR/r/ for the answers.
//   node hostile-cases.mjs check --dir DIR [--oas URL]
//       reads each case's answer (DIR/r/N.hdr, DIR/r/N.body) and prints
//       one line per case: "ok<TAB>NAME" or "not ok<TAB>NAME<TAB>WHY";
//       with --oas, every answer is also checked by the response validator
//       (t/lib/oas-validate.mjs) at that URL.
//
// The fixtures file maps what a path or body needs to an existing value:
// {"Customer": "Customer:<uuid>", "ExternalAccount": ..., "InternalAccount":
// ..., "Token": ..., "Quote": ..., "Webhook": ..., "transactionId": ...,
// "ppvAddress": ...}; a string whose pattern starts with ^Kind: (or
// ^(Kind:)?) takes fixture Kind, other path parameters are taken by name.
//
// Every case expects a 4xx answer in the error envelope; most expect a
// precise status, code and the field its details must name.  Requests that
// would be valid are made invalid by an extra unknown property
// ("zzHostile"), so that no case can write anything: then the details must
// name only that property, which proves the rest of the body was accepted.

import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, resolve, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');

const args = process.argv.slice(2);
const mode = args.shift();
const opt = { spec: resolve(repo, 'openapi', 'openapi.json') };
for (let i = 0; i < args.length; i += 2) opt[args[i].replace(/^--/, '')] = args[i + 1];

const doc = JSON.parse(readFileSync(opt.spec, 'utf8'));
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const POISON = 'zzHostile';

function deref(node) {
  for (let n = 0; node && typeof node === 'object' && typeof node.$ref === 'string'; n++) {
    if (n > 20) throw new Error(`reference loop at ${node.$ref}`);
    node = node.$ref.slice(2).split('/').reduce((o, k) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return node;
}

// Every operation: method, template, path and query parameters, body schema.
function operations() {
  const ops = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const m of METHODS) {
      const op = item[m];
      if (!op) continue;
      const params = [...(item.parameters || []), ...(op.parameters || [])].map(deref);
      const rb = op.requestBody ? deref(op.requestBody) : null;
      const security = op.security ?? doc.security ?? [];
      ops.push({
        method: m.toUpperCase(),
        template,
        key: `${m.toUpperCase()} ${template}`,
        pathParams: params.filter((p) => p.in === 'path'),
        query: params.filter((p) => p.in === 'query'),
        headerParams: params.filter((p) => p.in === 'header'),
        body: rb ? deref(rb.content?.['application/json']?.schema) : null,
        bodyRequired: rb ? rb.required === true : false,
        public: Array.isArray(security) && security.length === 0 ||
          (Array.isArray(security) && security.some((s) => Object.keys(s).length === 0)),
      });
    }
  }
  return ops;
}

if (mode === 'ops') {
  for (const o of operations()) console.log(o.key);
  process.exit(0);
}

// --- valid values from schemas ---------------------------------------------

let FIX = {};

// Candidates for strings with a pattern, tried in order.
const CANDIDATES = ['USD', 'US', '100', '1990-01-01', '000123456789', '021000021',
  'https://example.com/hook', 't99-name', 'Test Person', 'x'];

function kindOfPattern(p) {
  const m = /^\^(?:\()?([A-Za-z]+):/.exec(p || '');
  return m ? m[1] : null;
}

function typesOf(s) {
  s = deref(s);
  if (s.const !== undefined) return [typeof s.const === 'string' ? 'string' : typeof s.const];
  if (s.enum) return [...new Set(s.enum.map((v) => (v === null ? 'null' : typeof v === 'number' ? 'number' : typeof v)))];
  if (s.oneOf || s.anyOf) return ['object'];
  const t = s.type;
  if (Array.isArray(t)) return t;
  return t ? [t] : ['object'];
}

function validValue(s, name) {
  s = deref(s);
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  if (s.oneOf) {
    const alt = deref(s.oneOf[0]);
    return validValue(alt, name);
  }
  const t = typesOf(s).find((x) => x !== 'null') || 'null';
  switch (t) {
    case 'string': {
      const kind = kindOfPattern(s.pattern);
      if (kind && FIX[kind]) return FIX[kind];
      if (name && FIX[name]) return FIX[name];
      const cands = [...(s.examples || []), ...(s.example !== undefined ? [s.example] : []), ...CANDIDATES];
      for (const c of cands) {
        if (typeof c !== 'string') continue;
        if (s.pattern && !new RegExp(s.pattern, 'u').test(c)) continue;
        if (s.minLength && c.length < s.minLength) continue;
        if (s.maxLength && c.length > s.maxLength) continue;
        if (s.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(c)) continue;
        return c;
      }
      return 'x'.repeat(Math.max(1, s.minLength || 1));
    }
    case 'integer':
    case 'number': {
      let v = 1;
      if (s.minimum !== undefined && s.minimum > v) v = s.minimum;
      if (s.maximum !== undefined && s.maximum < v) v = s.maximum;
      return v;
    }
    case 'boolean':
      return true;
    case 'array': {
      const n = Math.max(1, s.minItems || 0);
      return Array.from({ length: n }, () => validValue(s.items || {}, null));
    }
    case 'null':
      return null;
    default: {
      const o = {};
      for (const r of s.required || []) o[r] = validValue(s.properties?.[r] || {}, r);
      return o;
    }
  }
}

// The schema of an object node, with a oneOf resolved to the variant the
// value's discriminator (or the first variant) selects.
function objectSchema(s, value) {
  s = deref(s);
  if (s.oneOf) {
    const d = s.discriminator;
    if (d && d.mapping && value && typeof value === 'object' && d.mapping[value[d.propertyName]])
      return deref({ $ref: d.mapping[value[d.propertyName]] });
    return deref(s.oneOf[0]);
  }
  return s;
}

// Field paths of a body: [{path: ['a', 0, 'b'], schema, required}] for every
// property (present in the base or optional) and the first item of arrays.
function fields(schema, value, prefix = []) {
  const out = [];
  const s = objectSchema(schema, value);
  for (const [k, ps0] of Object.entries(s.properties || {})) {
    const ps = deref(ps0);
    const path = [...prefix, k];
    const req = (s.required || []).includes(k);
    out.push({ path, schema: ps, required: req });
    const v = value && typeof value === 'object' && k in value ? value[k] : validValue(ps, k);
    const t = typesOf(ps);
    if (t.includes('object') && !ps.enum && v && typeof v === 'object' && !Array.isArray(v))
      out.push(...fields(ps, v, path));
    if (t.includes('array') && ps.items) {
      const it = deref(ps.items);
      out.push({ path: [...path, 0], schema: it, required: false, item: true });
      const iv = Array.isArray(v) && v.length ? v[0] : validValue(it, null);
      if (typesOf(it).includes('object') && iv && typeof iv === 'object')
        out.push(...fields(it, iv, [...path, 0]));
    }
  }
  return out;
}

function pathName(path) {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : (s ? '.' : '') + p;
  return s;
}

// Acceptable details keys naming a field: its path, or (for an array item)
// the array's path.
function namesFor(path) {
  const n = [pathName(path)];
  for (let i = path.length - 1; i >= 0; i--)
    if (typeof path[i] === 'number') n.push(pathName(path.slice(0, i)));
  return n;
}

function clone(v) {
  return JSON.parse(JSON.stringify(v));
}

// Sets the value at path in a copy of the base, creating what is missing.
function withValue(base, path, v, fullSchema) {
  const b = clone(base);
  let node = b;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i];
    if (node[k] === undefined || node[k] === null || typeof node[k] !== 'object') {
      // Make the container from the schema.
      node[k] = typeof path[i + 1] === 'number' ? [] : {};
      const sub = schemaAt(fullSchema, base, path.slice(0, i + 1));
      if (sub && typeof path[i + 1] !== 'number') Object.assign(node[k], validValue(sub, null));
      if (sub && typeof path[i + 1] === 'number') node[k] = validValue(sub, null);
    }
    node = node[k];
  }
  node[path[path.length - 1]] = v;
  return b;
}

function withoutKey(base, path) {
  const b = clone(base);
  let node = b;
  for (let i = 0; i < path.length - 1 && node; i++) node = node[path[i]];
  if (node && typeof node === 'object') delete node[path[path.length - 1]];
  return b;
}

function schemaAt(schema, value, path) {
  let s = schema;
  let v = value;
  for (const k of path) {
    if (typeof k === 'number') {
      s = deref(deref(s).items || {});
      v = Array.isArray(v) ? v[k] : undefined;
    } else {
      s = objectSchema(s, v);
      s = deref((s.properties || {})[k] || {});
      v = v && typeof v === 'object' ? v[k] : undefined;
    }
  }
  return s;
}

// JSON text of a value with a raw JSON fragment in place of the value at
// path (a marker string is swapped for the fragment).
const MARK = '\u0001HOSTILE\u0001';
function jsonWithRaw(base, path, raw, fullSchema) {
  const v = withValue(base, path, MARK, fullSchema);
  return JSON.stringify(v).replace(JSON.stringify(MARK), raw);
}

// Wrong JSON values by type.
const WRONG = {
  string: '"7"',
  number: '7',
  fraction: '1.5',
  boolean: 'true',
  null: 'null',
  array: '[]',
  object: '{}',
};

function wrongFor(schema) {
  const t = typesOf(schema);
  const out = [];
  const isInt = t.includes('integer');
  if (!t.includes('string')) out.push(['string', WRONG.string]);
  if (!t.includes('number') && !isInt) out.push(['number', WRONG.number]);
  if (!t.includes('boolean')) out.push(['boolean', WRONG.boolean]);
  if (!t.includes('null')) out.push(['null', WRONG.null]);
  if (!t.includes('array')) out.push(['array', WRONG.array]);
  if (!t.includes('object')) out.push(['object', WRONG.object]);
  return out;
}

// Numeric forms for an integer field: [label, JSON text, valid by schema].
function numberForms(s) {
  const min = s.minimum ?? -Infinity;
  const max = s.maximum ?? Infinity;
  const inRange = (n) => n >= min && n <= max;
  const forms = [
    ['2^64', '18446744073709551616', false],
    ['2^63', '9223372036854775808', false],
    ['-2^63-1', '-9223372036854775809', false],
    ['40 digits', '1234567890123456789012345678901234567890', false],
    ['1e400', '1e400', false],
    ['-1', '-1', inRange(-1)],
    ['zero', '0', inRange(0)],
    ['fraction 1.5', '1.5', false],
    ['fraction 1.0', '1.0', false],
    ['exponent 1e2', '1e2', false],
    ['exponent 1E+2', '1E+2', false],
    ['exponent 10e-1', '10e-1', false],
    ['leading zero 01', '01', false],
    ['plus sign +1', '+1', false],
    ['hex 0x10', '0x10', false],
    ['NaN', 'NaN', false],
  ];
  if (!inRange(0)) forms.push(['-0', '-0', false]);
  if (Number.isFinite(max)) forms.push(['maximum+1', String(BigInt(Math.round(max)) + 1n), false]);
  if (Number.isFinite(min) && min > -1e15) forms.push(['minimum-1', String(BigInt(Math.round(min)) - 1n), false]);
  return forms;
}

// Forms for an amount string (pattern of digits with a non-zero one).
function amountForms() {
  return [
    ['"2^64"', '"18446744073709551616"'],
    ['"40 digits"', '"1234567890123456789012345678901234567890"'],
    ['"-1"', '"-1"'],
    ['"0"', '"0"'],
    ['"000"', '"000"'],
    ['"1.5"', '"1.5"'],
    ['"1.0"', '"1.0"'],
    ['"1e3"', '"1e3"'],
    ['"+1"', '"+1"'],
    ['" 1"', '" 1"'],
    ['"0x10"', '"0x10"'],
    ['""', '""'],
    ['"1,000"', '"1,000"'],
    ['number 100', '100'],
    ['number 1e2', '1e2'],
  ];
}

function isAmountString(s) {
  return typesOf(s).includes('string') && s.pattern === '^[0-9]*[1-9][0-9]*$';
}

// --- generation --------------------------------------------------------------

function gen() {
  FIX = JSON.parse(readFileSync(opt.fixtures, 'utf8'));
  const dir = resolve(opt.dir);
  mkdirSync(join(dir, 'b'), { recursive: true });
  mkdirSync(join(dir, 'r'), { recursive: true });
  const base = opt.base.replace(/\/$/, '');
  const cases = [];
  const cfg = [];

  function add(c) {
    const n = cases.length;
    c.n = n;
    const lines = [];
    if (n > 0) lines.push('next');
    lines.push(`url = ${q(base + c.url)}`);
    lines.push(`request = ${q(c.method)}`);
    lines.push('silent', 'show-error', 'insecure', 'globoff', 'path-as-is', 'max-time = 60');
    lines.push(`output = ${q(join(dir, 'r', `${n}.body`))}`);
    lines.push(`dump-header = ${q(join(dir, 'r', `${n}.hdr`))}`);
    lines.push('header = "Expect:"');
    const auth = c.authz === undefined ? opt.authz : c.authz;
    if (auth !== null) lines.push(`header = ${q(`Authorization: ${auth}`)}`);
    if (c.body !== undefined) {
      const f = join(dir, 'b', String(n));
      writeFileSync(f, c.body);
      lines.push(`data-binary = ${q('@' + f)}`);
      const ct = c.ctype === undefined ? 'application/json' : c.ctype;
      lines.push(`header = ${q(ct === '' ? 'Content-Type:' : `Content-Type: ${ct}`)}`);
    }
    for (const h of c.headers || []) lines.push(`header = ${q(h)}`);
    if (c.http1) lines.push('http1.1');
    cfg.push(lines.join('\n'));
    delete c.body;
    cases.push(c);
  }
  const q = (s) => JSON.stringify(s); // curl config strings take \" and \\ escapes

  const ops = operations();
  for (const op of ops) {
    // The path with every parameter a fixture.
    const fixFor = (p) => {
      const s = deref(p.schema || {});
      const kind = kindOfPattern(s.pattern);
      return (kind && FIX[kind]) || FIX[p.name] || 'x';
    };
    const pathWith = (over = {}) => op.template.replace(/\{([^}]+)\}/g, (_, name) => {
      if (name in over) return over[name];
      return encodeURIComponent(fixFor(op.pathParams.find((p) => p.name === name) || { name }));
    });
    const path = pathWith();
    const bodySchema = op.body;
    const baseBody = bodySchema ? validValue(bodySchema, null) : null;
    const poisoned = (v) => {
      const b = clone(v);
      b[POISON] = 1;
      return b;
    };
    const bodyOp = !!bodySchema;
    const validBodyText = bodyOp ? JSON.stringify(poisoned(baseBody)) : undefined;

    // Answers that must name only the poison: the rest was accepted.
    const ONLY_POISON = { status: 400, code: 'INVALID_REQUEST', detailsOnly: [POISON] };

    // Authentication: never reaches the operation.
    if (!op.public) {
      const authCases = [
        ['Basic credentials without a colon', `Basic ${Buffer.from('no-colon-here').toString('base64')}`],
        ['Basic credentials that are not base64', 'Basic !!!not*base64$$'],
        ['Basic credentials of 10 KB', `Basic ${Buffer.from(`${'0'.repeat(36)}:${'s'.repeat(7400)}`).toString('base64')}`],
        ['Basic with nothing after it', 'Basic'],
        ['Basic of a lone colon', `Basic ${Buffer.from(':').toString('base64')}`],
        ['Basic with an unknown client and a NUL', `Basic ${Buffer.from('a\0b:c').toString('base64')}`],
      ];
      for (const [what, authz] of authCases)
        add({ op: op.key, name: `${op.key}: ${what}`, method: op.method, url: path, authz,
          ...(bodyOp ? { body: validBodyText } : {}),
          expect: { status: 401, code: 'UNAUTHORIZED', detailsEmpty: true, wwwAuth: true } });
    }

    // A 20 KB header (HTTP/1.1): nginx's own 400 in the envelope.
    add({ op: op.key, name: `${op.key}: a 20 KB header (HTTP/1.1)`, method: op.method, url: path,
      headers: [`X-Hostile: ${'h'.repeat(20 * 1024)}`], http1: true,
      ...(bodyOp ? { body: validBodyText } : {}),
      expect: { status: 400, code: 'INVALID_REQUEST' } });

    // Path parameters: percent-encoding tricks.
    for (const p of op.pathParams) {
      const good = encodeURIComponent(fixFor(p));
      const tricks = [
        ['%2F', '%2F'], ['id%2F', `${good}%2F`], ['id%2Fx', `${good}%2Fx`], ['%00', '%00'],
        ['id%00', `${good}%00`], ['..', '..'], ['%2e%2e', '%2e%2e'], ['..%2F..%2Fconfig', '..%2F..%2Fconfig'],
        ['%zz', '%zz'], ['id%zz', `${good}%zz`], ['%4', '%4'], ['a lone %', '%'], ['id%4', `${good}%4`],
        ['300 characters', 'A'.repeat(300)], ['id plus 300 characters', good + 'A'.repeat(300)],
        ['%C0%AF', '%C0%AF'], ['%FF', '%FF'], ['id%20', `${good}%20`], ['%0A', `${good}%0A`],
      ];
      for (const [what, v] of tricks)
        add({ op: op.key, name: `${op.key}: ${p.name} ${what}`, method: op.method,
          url: pathWith({ [p.name]: v }), ...(bodyOp ? { body: validBodyText } : {}),
          expect: { status: null } });
    }

    // Header parameters (Idempotency-Key, X-Platform-Id): too long, not
    // ASCII, empty.
    for (const p of op.headerParams) {
      const hcases = [
        ['of 300 characters', `${p.name}: ${'k'.repeat(300)}`],
        ['with a byte that is not ASCII', `${p.name}: a\u00ffb`],
        ['empty', `${p.name};`],
      ];
      for (const [what, h] of hcases)
        add({ op: op.key, name: `${op.key}: header ${p.name} ${what}`, method: op.method, url: path,
          headers: [h], ...(bodyOp ? { body: validBodyText } : {}),
          expect: { status: 400, code: 'INVALID_REQUEST', details: [p.name] } });
    }

    // Query parameters: given twice, NUL, not UTF-8; the operation's other
    // required query parameters given valid values, so only this one is wrong.
    for (const p of op.query) {
      const s = deref(p.schema || {});
      const v = encodeURIComponent(String(validValue(s, p.name)));
      const others = op.query.filter((q) => q.required && q.name !== p.name)
        .map((q) => `&${q.name}=${encodeURIComponent(String(validValue(deref(q.schema || {}), q.name)))}`)
        .join('');
      const qcases = [
        ['given twice', `${p.name}=${v}&${p.name}=${v}`],
        ['with a NUL', `${p.name}=${v}%00`],
        ['not UTF-8 (%FF)', `${p.name}=%FF`],
        ['overlong (%C0%AF)', `${p.name}=%C0%AF`],
        ['a bad escape (%zz)', `${p.name}=%zz`],
      ];
      for (const [what, qs] of qcases)
        add({ op: op.key, name: `${op.key}: query ${p.name} ${what}`, method: op.method,
          url: `${path}?${qs}${others}`, ...(bodyOp ? { body: validBodyText } : {}),
          expect: { status: 400, code: 'INVALID_REQUEST', details: [p.name] } });
    }

    if (!bodyOp) continue;

    // The base body is valid: with the poison, only the poison is named.
    add({ op: op.key, name: `${op.key}: the base body with an unknown property`, method: op.method,
      url: path, body: validBodyText, expect: ONLY_POISON });

    // Content types.
    for (const ct of ['text/plain', 'application/x-www-form-urlencoded', '', 'application/jsonx',
      'application/json-patch+json', 'multipart/form-data; boundary=x', 'text/json',
      'application/json, text/plain', 'application/xml']) {
      add({ op: op.key, name: `${op.key}: Content-Type ${ct === '' ? '(none)' : ct}`, method: op.method,
        url: path, body: validBodyText, ctype: ct,
        expect: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' } });
    }

    // Malformed and truncated JSON.
    const full = validBodyText;
    const malformed = [
      ['truncated to 1 byte', full.slice(0, 1)],
      ['truncated to a quarter', full.slice(0, Math.floor(full.length / 4))],
      ['truncated to a half', full.slice(0, Math.floor(full.length / 2))],
      ['truncated by one byte', full.slice(0, -1)],
      ['an unquoted key', full.replace(/^\{"([^"]+)"/, '{$1')],
      ['single quotes', full.replace(/"/g, "'")],
      ['a trailing comma', full.replace(/\}$/, ',}')],
      ['trailing garbage', `${full} x`],
      ['two objects', `${full}${full}`],
      ['a comment', `/* c */${full}`],
      ['a BOM', `\uFEFF${full}`],
      ['NaN', '{"a":NaN}'],
      ['Infinity', '{"a":Infinity}'],
      ['a top-level array', `[${full}]`],
      ['a top-level string', '"x"'],
      ['a top-level number', '42'],
      ['a top-level null', 'null'],
      ['an unterminated string', '{"a":"xyz'],
      ['a raw control character in a string', '{"a":"x\ty"}'.replace('\t', '\u0001')],
      ['a bad escape', '{"a":"\\q"}'],
      ['a short unicode escape', '{"a":"\\u12"}'],
      ['nested 30000 arrays deep', `{"a":${'['.repeat(30000)}${']'.repeat(30000)}}`],
      ['a NUL byte after the JSON', `${full}\u0000`],
      ['a NUL byte before the JSON', `\u0000${full}`],
    ];
    if (!op.bodyRequired) {
      // An optional body may be empty; whitespace alone is not JSON.
      malformed.push(['only whitespace', '   ']);
    } else {
      malformed.push(['empty', ''], ['only whitespace', '   ']);
    }
    for (const [what, text] of malformed)
      add({ op: op.key, name: `${op.key}: body ${what}`, method: op.method, url: path,
        body: Buffer.from(text, 'utf8'), expect: { status: 400, code: 'INVALID_REQUEST', details: ['body'] } });

    // Keys that are not text.
    const keyCases = [
      ['an escaped NUL in a key', '{"a\\u0000b":1,'],
      ['an invalid byte in a key', Buffer.concat([Buffer.from('{"a'), Buffer.from([0xff]), Buffer.from('":1,')])],
      ['an overlong form in a key', Buffer.concat([Buffer.from('{"a'), Buffer.from([0xc0, 0xaf]), Buffer.from('":1,')])],
      ['an escaped lone surrogate in a key', '{"\\ud800":1,'],
    ];
    for (const [what, prefix] of keyCases) {
      const rest = Buffer.from(full.slice(1));
      add({ op: op.key, name: `${op.key}: ${what}`, method: op.method, url: path,
        body: Buffer.concat([Buffer.from(prefix), rest]),
        expect: { status: 400, code: 'INVALID_REQUEST', details: ['body'] } });
    }

    // Field by field.
    const fs = fields(bodySchema, baseBody);
    let bigDone = false;
    for (const f of fs) {
      const name = pathName(f.path);
      const names = namesFor(f.path);
      const s = f.schema;
      const poisonedBase = poisoned(baseBody);

      // Every wrong JSON type.
      for (const [t, raw] of wrongFor(s))
        add({ op: op.key, name: `${op.key}: ${name} given ${/^[aeiou]/.test(t) ? 'an' : 'a'} ${t}`,
          method: op.method, url: path, body: jsonWithRaw(poisonedBase, f.path, raw, bodySchema),
          expect: { status: 400, code: 'INVALID_REQUEST', details: names } });

      // Missing when required (not poisoned: a missing field is refused
      // anyway, and some are checked only once the field table passed, e.g.
      // the fields a quote's destination variant requires).
      if (f.required && !f.item) {
        const holder = withValue(baseBody, f.path, validValue(s, f.path[f.path.length - 1]), bodySchema);
        add({ op: op.key, name: `${op.key}: ${name} missing`, method: op.method, url: path,
          body: JSON.stringify(withoutKey(holder, f.path)),
          expect: { status: 400, code: 'INVALID_REQUEST', details: names } });
      }

      const t = typesOf(s);
      if (t.includes('integer')) {
        for (const [what, raw, valid] of numberForms(s))
          add({ op: op.key, name: `${op.key}: ${name} ${what}`, method: op.method, url: path,
            body: jsonWithRaw(poisonedBase, f.path, raw, bodySchema),
            expect: valid ? { ...ONLY_POISON }
              : { status: 400, code: 'INVALID_REQUEST', details: raw === 'NaN' ? ['body'] : raw.match(/^(0x|\+|01$)/) ? ['body'] : names } });
      }
      if (isAmountString(s)) {
        for (const [what, raw] of amountForms())
          add({ op: op.key, name: `${op.key}: ${name} ${what}`, method: op.method, url: path,
            body: jsonWithRaw(poisonedBase, f.path, raw, bodySchema),
            expect: { status: 400, code: 'INVALID_REQUEST', details: names } });
      }
      if (t.includes('string') && !f.item) {
        // Text that is not: NUL, invalid bytes, overlong forms, surrogates.
        const textCases = [
          ['an escaped NUL', Buffer.from('"a\\u0000b"')],
          ['a raw invalid byte', Buffer.from([0x22, 0x61, 0xff, 0x62, 0x22])],
          ['an overlong form', Buffer.from([0x22, 0x61, 0xc0, 0xaf, 0x22])],
          ['an encoded surrogate', Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22])],
          ['an escaped lone surrogate', Buffer.from('"\\udc00"')],
        ];
        for (const [what, raw] of textCases) {
          const text = jsonWithRaw(poisonedBase, f.path, 'ZZRAWZZ', bodySchema);
          const [a, b] = text.split('ZZRAWZZ');
          add({ op: op.key, name: `${op.key}: ${name} with ${what}`, method: op.method, url: path,
            body: Buffer.concat([Buffer.from(a), raw, Buffer.from(b)]),
            expect: { status: 400, code: 'INVALID_REQUEST', details: names } });
        }
        // 100 KB and 1 MiB strings (once per operation).
        if (!bigDone) {
          bigDone = true;
          // The 1 MiB one over HTTP/1.1, on a connection of its own: over one
          // HTTP/2 connection, nginx resets concurrent streams whose bodies
          // pass client_max_body_size instead of answering each 413 (t/00
          // sends one such body over HTTP/2).
          for (const [what, size] of [['100 KB', 100 * 1024], ['1 MiB', 1024 * 1024]])
            add({ op: op.key, name: `${op.key}: ${name} a string of ${what}`, method: op.method, url: path,
              http1: size > 65536 * 4,
              body: jsonWithRaw(poisonedBase, f.path, JSON.stringify('s'.repeat(size)), bodySchema),
              expect: { status: 413, code: 'PAYLOAD_TOO_LARGE' } });
        }
      }

      // Duplicated keys: the last one counts.
      if (!f.item && typeof f.path[f.path.length - 1] === 'string') {
        const key = f.path[f.path.length - 1];
        const goodRaw = JSON.stringify(validValue(s, key) ?? null);
        const existing = (() => {
          let v = poisonedBase;
          for (const k of f.path) v = v?.[k];
          return v === undefined ? null : JSON.stringify(v);
        })();
        const valid = existing ?? goodRaw;
        const bad = wrongFor(s)[0][1];
        const dup = (first, last) => {
          const holder = withoutKey(withValue(poisonedBase, f.path, JSON.parse(valid), bodySchema), f.path);
          const text = JSON.stringify(withValue(holder, [...f.path.slice(0, -1), 'zzDupMarker'], 0, bodySchema));
          return text.replace('"zzDupMarker":0', `${JSON.stringify(key)}:${first},${JSON.stringify(key)}:${last}`);
        };
        add({ op: op.key, name: `${op.key}: ${name} duplicated, the last of the wrong type`, method: op.method,
          url: path, body: dup(valid, bad), expect: { status: 400, code: 'INVALID_REQUEST', details: names } });
        add({ op: op.key, name: `${op.key}: ${name} duplicated, the first of the wrong type (last wins)`,
          method: op.method, url: path, body: dup(bad, valid), expect: ONLY_POISON });
      }
    }
  }

  writeFileSync(join(dir, 'cases.jsonl'), cases.map((c) => JSON.stringify(c)).join('\n') + '\n');
  writeFileSync(join(dir, 'curl.cfg'), cfg.join('\n') + '\n');
  console.log(`${cases.length} cases over ${ops.length} operations`);
}

// --- checking ---------------------------------------------------------------

async function check() {
  const dir = resolve(opt.dir);
  const cases = readFileSync(join(dir, 'cases.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const results = new Array(cases.length);
  let next = 0;

  async function one(c) {
    const why = [];
    const hf = join(dir, 'r', `${c.n}.hdr`);
    const bf = join(dir, 'r', `${c.n}.body`);
    const rawH = existsSync(hf) ? readFileSync(hf, 'latin1').replace(/\r/g, '') : '';
    const blocks = rawH.split(/\n(?=HTTP\/)/);
    const hdr = blocks[blocks.length - 1] || '';
    const m = /^HTTP\/[0-9.]+ ([0-9]{3})/.exec(hdr);
    const status = m ? Number(m[1]) : 0;
    const body = existsSync(bf) ? readFileSync(bf, 'utf8') : '';
    const headers = {};
    for (const line of hdr.split('\n').slice(1)) {
      const i = line.indexOf(':');
      if (i > 0) {
        const k = line.slice(0, i).trim().toLowerCase();
        headers[k] = headers[k] === undefined ? line.slice(i + 1).trim() : `${headers[k]}, ${line.slice(i + 1).trim()}`;
      }
    }
    if (status === 0) {
      why.push('no HTTP response');
      return { c, why, status, body };
    }
    if (status >= 500) why.push(`HTTP ${status} (a server error)`);
    else if (status < 400) why.push(`HTTP ${status} (not refused)`);
    const e = c.expect;
    if (e.status && status !== e.status) why.push(`HTTP ${status}, expected ${e.status}`);
    if (!/^application\/json\s*(;.*)?$/.test(headers['content-type'] || '')) why.push(`Content-Type is '${headers['content-type'] || ''}'`);
    if (headers['cache-control'] !== 'no-store') why.push(`Cache-Control is '${headers['cache-control'] || ''}'`);
    if (!headers['x-request-id'] || headers['x-request-id'].includes(',')) why.push(`X-Request-Id is '${headers['x-request-id'] || ''}'`);
    if (!headers['x-api-version']) why.push('no X-Api-Version');
    let j = null;
    try {
      j = JSON.parse(body);
    } catch {
      why.push('the body is not JSON');
    }
    if (j !== null) {
      const keys = j && typeof j === 'object' && !Array.isArray(j) ? Object.keys(j).sort().join(',') : '(not an object)';
      if (keys !== 'code,details,message,status') why.push(`not the error envelope (keys ${keys})`);
      else {
        if (j.status !== status) why.push(`envelope status ${j.status} differs from HTTP ${status}`);
        if (typeof j.code !== 'string') why.push('code is not a string');
        if (typeof j.message !== 'string' || j.message === '') why.push('message is not a non-empty string');
        if (!j.details || typeof j.details !== 'object' || Array.isArray(j.details)) why.push('details is not an object');
        if (e.code && j.code !== e.code) why.push(`code ${j.code}, expected ${e.code}`);
        const dk = j.details && typeof j.details === 'object' ? Object.keys(j.details) : [];
        if (e.details && !e.details.some((k) => dk.includes(k)))
          why.push(`details ${JSON.stringify(j.details)} name none of ${e.details.join(', ')}`);
        if (e.detailsOnly && dk.sort().join(',') !== [...e.detailsOnly].sort().join(','))
          why.push(`details ${JSON.stringify(j.details)}, expected only ${e.detailsOnly.join(', ')}`);
        if (e.detailsEmpty && dk.length) why.push(`details ${JSON.stringify(j.details)}, expected {}`);
      }
    }
    if (e.wwwAuth && headers['www-authenticate'] !== 'Basic realm="xborder"')
      why.push(`WWW-Authenticate is '${headers['www-authenticate'] || ''}'`);
    if (opt.oas) {
      try {
        const r = await fetch(`${opt.oas.replace(/\/$/, '')}/check`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ method: c.method, path: c.url, status, body, headers: hdr }),
        });
        const text = await r.text();
        if (!text.startsWith('ok ')) why.push(`OpenAPI: ${text.trim().split('\n').join(' / ')}`);
      } catch (err) {
        why.push(`the OpenAPI validator did not answer: ${err.message}`);
      }
    }
    return { c, why, status, body };
  }

  async function worker() {
    while (next < cases.length) {
      const i = next++;
      results[i] = await one(cases[i]);
    }
  }
  await Promise.all(Array.from({ length: 8 }, worker));
  const clean = (s) => String(s).replace(/[\t\n\r]/g, ' ');
  const out = [];
  for (const r of results) {
    if (!r.why.length) out.push(`ok\t${clean(r.c.name)}`);
    else {
      const shown = r.body.length > 300 ? `${r.body.slice(0, 300)}... (${r.body.length} bytes)` : r.body;
      out.push(`not ok\t${clean(r.c.name)}\t${clean(r.why.join('; '))} | request: ${clean(r.c.method)} ${clean(r.c.url.slice(0, 200))} (body b/${r.c.n}) | answer: ${r.status} ${clean(shown)}`);
    }
  }
  process.stdout.write(out.join('\n') + '\n');
}

if (mode === 'gen') gen();
else if (mode === 'check') await check();
else {
  process.stderr.write('usage: hostile-cases.mjs ops|gen|check [options]\n');
  process.exit(2);
}
