#!/usr/bin/env python3
# fuzz/seeds.py: writes the hand-made seed corpora fuzz/corpus/<harness>/.
# The committed files are what it writes; run it again after editing it
# (it only adds and overwrites, it never deletes).  The money records are
# binary: the field layout is fuzz/money.c's LLVMFuzzerTestOneInput.
import os, base64, struct
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus')
def put(h, name, data):
    d = os.path.join(root, h); os.makedirs(d, exist_ok=True)
    if isinstance(data, str): data = data.encode()
    open(os.path.join(d, name), 'wb').write(data)

# ---- body: request bodies
U = '7c9e6679-7425-40de-944b-e07fc1f90ae7'
B = {
 'tokens-create': '{"name":"ci token","permissions":["view","manage"]}',
 'tokens-create-unicode': '{"name":"caf\u00e9 \u65e5\u672c \U0001F600","permissions":["view"]}',
 'config-patch': '{"webhookEndpoint":"https://hooks.example.com/xb","quoteFeePolicy":{"senderServiceFeeBps":25,"receiverServiceFeeBps":10}}',
 'config-patch-currencies': '{"supportedCurrencies":[{"currencyCode":"USD","minAmount":100,"maxAmount":1000000,"enabledTransactionTypes":["OUTGOING","INCOMING"],"requiredCounterpartyFields":[{"profile":"FULL_NAME","mandatory":true},{"profile":"BIRTH_DATE","mandatory":false}]}]}',
 'config-patch-null-webhook': '{"webhookEndpoint":null}',
 'profile-patch': '{"btcFiatSpreadBps":150,"lockPriceDurationSeconds":300}',
 'customers-create': '{"platformCustomerId":"cust-001","customerType":"INDIVIDUAL","fullName":"Ada Lovelace","kycStatus":"APPROVED","ppvName":"ada.l"}',
 'customers-patch': '{"fullName":"Ada King","kycStatus":"PENDING"}',
 'customers-ppv': '{"ppvName":"ada_2"}',
 'external-create': '{"customerId":"Customer:%s","currency":"EUR","platformAccountId":"acct-9","accountInfo":{"accountType":"CHECKING","accountCategory":"PERSONAL","bankName":"Banco","accountNumber":"DE89370400440532013000","routingNumber":"COBADEFF"}}' % U,
 'internal-fund': '{"amountMinor":500000}',
 'quotes-create-ppv': '{"source":{"accountId":"InternalAccount:%s"},"destination":{"destinationType":"PPV_ADDRESS","ppvAddress":"$bob@sandbox.xborder.test","currencyCode":"MXN"},"lockedCurrencySide":"SENDING","lockedCurrencyAmount":"10000","senderCounterpartyInfo":{"FULL_NAME":"Ada Lovelace","BIRTH_DATE":"1815-12-10","NATIONALITY":"GB"}}' % U,
 'quotes-create-ext': '{"source":{"accountId":"a"},"destination":{"destinationType":"EXTERNAL_ACCOUNT","accountId":"ExternalAccount:%s"},"lockedCurrencySide":"RECEIVING","lockedCurrencyAmount":"999999999999999999"}' % U,
 'review-simulate': '{"receiverCustomerId":"Customer:%s","scenario":"sanctions_hit","amountMinor":12345,"currencyCode":"USD"}' % U,
 'review-approve': '{"counterpartyInfo":{"senderFullLegalName":"X Y","senderCountryCode":"FR","senderDateOfBirthOrRegistrationId":"1990-01-01","purposeOfPayment":"rent"},"note":"ok"}',
 'review-reject': '{"reason":"line1\\nline2\\ttab\\r"}',
 'transfer': '{"source":{"accountId":"InternalAccount:%s"},"destination":{"accountId":"ExternalAccount:%s"},"amount":{"currencyCode":"USD","amountMinor":"2500"}}' % (U, U),
 'empty-object': '{}',
 'wrong-types': '{"name":17,"permissions":"view","amountMinor":"5","fullName":null,"source":[],"mandatory":"true"}',
 'numbers-edge': '{"amountMinor":9223372036854775808,"btcFiatSpreadBps":-0,"lockPriceDurationSeconds":3.0e2,"minAmount":1E400,"maxAmount":-9223372036854775809}',
 'unknown-keys': '{"extra":1,"name":"n","permissions":["view"],"\\u00e9t\\u00e9":true}',
 'dup-keys': '{"name":"a","name":"b","permissions":["view"],"permissions":["x"]}',
 'deep-nesting': '{"source":' + '{"a":' * 40 + '1' + '}' * 40 + '}',
 'array-top': '[{"name":"n"},1,"s",null,true,false]',
 'string-top': '"just a string"',
 'escapes-ok': '{"fullName":"\\u0041\\u00e9\\ud83d\\ude00\\/\\\\\\"\\b\\f"}',
 'escape-nul': '{"fullName":"a\\u0000b","customerType":"ENTITY","platformCustomerId":"p"}',
 'escape-nul-key': '{"full\\u0000Name":"x"}',
 'escape-lone-surrogate': '{"name":"\\ud800","permissions":["view"]}',
 'escape-low-surrogate-first': '{"name":"\\udc00\\ud800x","permissions":["view"]}',
 'trailing-garbage': '{"name":"x"} x',
 'truncated': '{"name":"x","permissions":["vi',
 'comment': '{"name":"x"/*c*/}',
 'single-quotes': "{'name':'x'}",
 'bare-word': '{"name":nope}',
 'control-in-key': '{"na\\tme":"x"}',
 'long-key-multibyte': '{"' + '\u00e9' * 200 + '":1}',
 'long-nested-multibyte': '{"counterpartyInfo":{"' + '\u65e5' * 100 + '":1}}',
 'object-array-bad-items': '{"supportedCurrencies":[1,{"currencyCode":"usd"},{"requiredCounterpartyFields":[{"profile":"X"}]}]}',
}
for k, v in B.items(): put('body', k + '.json', v)
put('body', 'raw-overlong.json', b'{"name":"\xc0\xaf","permissions":["view"]}')
put('body', 'raw-surrogate.json', b'{"fullName":"\xed\xa0\x80"}')
put('body', 'raw-past-10ffff.json', b'{"fullName":"\xf4\x90\x80\x80"}')
put('body', 'raw-truncated-seq.json', b'{"fullName":"ab\xe2\x82"}')
put('body', 'raw-bad-key.json', b'{"\xff\xfe":"x"}')
put('body', 'raw-del.json', b'{"fullName":"a\x7fb"}')
put('body', 'raw-nul-byte.json', b'{"name":"a\x00b"}')
put('body', 'raw-5byte.json', b'{"note":"\xf8\x88\x80\x80\x80"}')

# ---- query: query strings (after '?')
Q = {
 'limit-cursor': 'limit=20&cursor=40',
 'limit-dup': 'limit=5&limit=6',
 'limit-zero': 'limit=0',
 'limit-big': 'limit=99999999999999999999',
 'limit-leading-zeros': 'limit=0000000000000000042',
 'cursor-max': 'cursor=9223372036854775807',
 'cursor-over': 'cursor=9223372036854775808',
 'cursor-negative': 'cursor=-1',
 'plus-space': 'customerId=a+b&name=a%20b',
 'bad-escapes': 'a=%zz&b=%0&c=%&d%zz=1&e=%00&f=%%41',
 'encoded-nul': 'limit=1%00',
 'no-value': 'flag&&&x=&=y&=',
 'many-eq': 'a==b=c&=&==',
 'dates': 'createdAfter=2024-02-29&createdBefore=2024-03-01T12:34:56.789Z',
 'dates-bad': 'createdAfter=2023-02-29&createdBefore=2024-13-01&x=2024-01-01T24:00:00Z',
 'dates-frac': 'a=2024-01-01T00:00:00.123456789Z&b=2024-01-01T00:00:00.Z&c=2024-01-01T00:00:00.1234567890Z',
 'date-end': 'createdBefore=1999-12-31',
 'date-year-zero': 'x=0000-01-01&y=9999-12-31T23:59:59Z',
 'utf8-ok': 'name=%C3%A9t%C3%A9&k%E6%97%A5=1',
 'utf8-overlong': 'name=%C0%AF',
 'utf8-surrogate': 'name=%ED%A0%80',
 'control': 'name=a%0Ab&n%09m=1',
 'status': 'status=QUOTE_READY&status=PENDING&type=OUTGOING',
 'long-value': 'q=' + 'x' * 300,
 'raw-high-bytes': 'q=\u00e9\u65e5',
 'ampersands': '&&&&limit=1&&&',
}
for k, v in Q.items(): put('query', k, v)
put('query', 'raw-binary', b'a=\xff\xfe&b=\xc0\xaf')

# ---- auth: Authorization header values
def basic(cred, lead='Basic '):
    if isinstance(cred, str): cred = cred.encode()
    return lead.encode() + base64.b64encode(cred)
S = 'xb_' + 'A' * 40
A = {
 'ok': basic(U + ':' + S),
 'ok-upper-id': basic(U.upper() + ':' + S),
 'ok-colon-in-secret': basic(U + ':a:b:c'),
 'ok-lower-scheme-tab': basic(U + ':s', 'basic\t'),
 'ok-no-padding': basic(U + ':ab').rstrip(b'='),
 'ok-trailing-blanks': basic(U + ':abc') + b' \t ',
 'no-colon': basic(U + S),
 'empty-secret': basic(U + ':'),
 'short-id': basic(U[:-1] + ':' + S),
 'bad-uuid': basic('zc9e6679-7425-40de-944b-e07fc1f90ae7:' + S),
 'nul-in-cred': basic(U + ':a\x00b'),
 'bad-base64': b'Basic !!!!',
 'bad-padding': b'Basic QQ=',
 'one-char-quantum': b'Basic QUJDR',
 'bearer': b'Bearer abc',
 'basic-nospace': b'BasicQUJD',
 'basic-only': b'Basic ',
 'empty': b'',
 'long-secret-127': basic(U + ':' + 'x' * 127),
 'long-secret-128': basic(U + ':' + 'x' * 128),
 'max-decoded-255': basic(U + ':' + 'y' * 218),
 'over-decoded-256': basic(U + ':' + 'y' * 219),
 'huge': b'Basic ' + b'A' * 10240,
 'url-alphabet': basic(U + ':' + '\xfb\xff').replace(b'+', b'-').replace(b'/', b'_'),
}
for k, v in A.items(): put('auth', k, v)
# raw credentials (the harness also base64-encodes the input itself)
put('auth', 'cred-raw-ok', U + ':' + S)
put('auth', 'cred-raw-upper', U.upper() + ':x')
put('auth', 'cred-raw-dashes-wrong', U.replace('-', 'x', 1) + ':x')

# ---- router: "METHOD path"
R = [
 'GET /healthz', 'GET /openapi.json', 'POST /tokens', 'GET /tokens/' + U,
 'DELETE /tokens/Token:' + U, 'PATCH /config', 'PUT /config',
 'GET /sandbox/lightning-execution-profile', 'GET /customers/external-accounts',
 'GET /customers/external-accounts/ExternalAccount:' + U,
 'DELETE /customers/Customer:' + U, 'POST /customers/' + U + '/ppv-address',
 'GET /customers/internal-accounts', 'POST /sandbox/internal-accounts/x/fund',
 'GET /receiver/ppv/%24bob%40sandbox.xborder.test', 'GET /receiver/external-account/a%2Fb',
 'POST /transactions/t/approve', 'POST /transactions/t/reject', 'GET /transactions/%00',
 'GET /transactions/%zz', 'GET /transactions/..', 'GET /transactions/%2e%2e',
 'GET /customers/%65xternal-accounts', 'POST /quotes/q/execute', 'GET /quotes/' + 'x' * 300,
 'POST /webhooks/deliveries/w/retry', 'GET /webhooks/signing-key',
 'GET /', 'GET //', 'GET /customers/', 'GET /a/b/c/d/e/f/g/h', 'GET /a/b/c/d/e/f/g/h/i',
 'BREW /healthz', 'OPTIONS /customers', 'HEAD /customers', 'GET customers',
 'GET /transfer-in', 'POST /transfer-out?x=1', 'GET /customers/a%2Fb%2Fc+d',
]
for i, v in enumerate(R):
    put('router', '%02d-%s' % (i, v.split(' ')[0].lower() + v.split(' ', 1)[1].replace('/', '_')[:40].replace('%', 'pct').replace('?', 'q')), v)

# ---- money: binary field records (see fuzz/money.c)
def rec(c1, c2, amount, ps, pr, es, er, sp, fs, fr, lock, sane=1, raw_amount=None):
    out = b''
    for c in (c1, c2):
        out += bytes([len(c) if len(c) <= 4 else 4]) + c.encode().ljust(4, b'\0')[:4]
    a = amount.encode()
    out += bytes([len(a)]) + bytes(ch - 48 for ch in a)    # digits as 0..9 (< 0xc0)
    def i64(v, raw=False):
        if raw: return bytes([0x80]) + struct.pack('>q', v)
        return bytes([0]) + struct.pack('>Q', v << 1)
    def i32(v, raw=False):
        if v == -1: return bytes([0x7f]) + bytes(8)
        if raw: return bytes([0x80]) + struct.pack('>q', v)
        return bytes([0]) + struct.pack('>Q', v)
    out += i64(ps) + i64(pr)
    if c1 not in CUR: out += i32(es)
    if c2 not in CUR: out += i32(er)
    out += i32(sp) + i32(fs) + i32(fr) + i32(lock)
    valid = 1 <= len(amount) <= 18 and amount.strip('0') != ''
    if not valid or raw_amount is not None:
        out += i64(raw_amount if raw_amount is not None else 1, raw=raw_amount is not None and raw_amount < 0)
    out += bytes([sane])
    return out
CUR = {'USD','EUR','MXN','JPY','BHD','KWD','GBP','CLP','INR','NGN'}
M = [
 ('usd-mxn-send', ('USD','MXN','10000', 6500000_00, 120000000_00, 2, 2, 150, 25, 10, 1)),
 ('usd-mxn-recv', ('USD','MXN','500000', 6500000_00, 120000000_00, 2, 2, 150, 25, 10, 0)),
 ('eur-jpy-send', ('EUR','JPY','1', 6000000_00, 9500000000, 2, 0, 0, 0, 0, 1)),
 ('jpy-bhd-recv', ('JPY','BHD','1', 9500000000, 24000000, 0, 3, 9999, 10000, 10000, 0)),
 ('kwd-clp-send', ('KWD','CLP','999999999999999999', 20000000, 60000000000, 3, 0, 0, 10000, 10000, 1)),
 ('clp-kwd-recv-max', ('CLP','KWD','999999999999999999', 60000000000, 20000000, 0, 3, 0, 10000, 10000, 0)),
 ('spread-100pct', ('USD','EUR','100', 6500000_00, 6000000_00, 2, 2, 10000, 0, 0, 1)),
 ('spread-over', ('USD','EUR','100', 6500000_00, 6000000_00, 2, 2, 20000, 0, 0, 0)),
 ('price-one', ('USD','INR','12345', 1, 1, 2, 2, 0, 0, 0, 1)),
 ('price-max', ('USD','INR','12345', 2**62, 2**62, 2, 2, 0, 0, 0, 0)),
 ('tiny-send-zero-receive', ('NGN','USD','1', 2**62, 1, 2, 2, 0, 0, 0, 1)),
 ('amount-leading-zeros', ('GBP','EUR','0000000000000000042', 5500000_00, 6000000_00, 2, 2, 1, 1, 1, 0)),
 ('amount-zero', ('GBP','EUR','000', 5500000_00, 6000000_00, 2, 2, 1, 1, 1, 1)),
 ('amount-19-digits', ('GBP','EUR','9223372036854775807', 5500000_00, 6000000_00, 2, 2, 1, 1, 1, 1)),
 ('unknown-codes', ('XXX','ABC','777', 123456789, 987654321, 4, 4, 5000, 5000, 5000, 0)),
 ('lowercase-codes', ('usd','Eur','777', 123456789, 987654321, 1, 3, 7, 3, 2, 1)),
 ('short-codes', ('US','E','777', 123456789, 987654321, 0, 0, 0, 0, 0, 0)),
 ('fees-max', ('USD','EUR','10000', 6500000_00, 6000000_00, 2, 2, 0, 10000, 10000, 1)),
 ('fees-max-recv', ('USD','EUR','10000', 6500000_00, 6000000_00, 2, 2, 0, 10000, 10000, 0)),
 ('exp-out-of-range', ('AAA','BBB','5', 100, 100, 5, -1, 0, 0, 0, 1)),
 ('empty-amount', ('USD','EUR','', 100, 100, 2, 2, 0, 0, 0, 1)),
]
for name, args in M: put('money', name, rec(*args))
put('money', 'raw-negative-amount', rec('USD','EUR','', 100, 100, 2, 2, 0, 0, 0, 1, sane=0, raw_amount=-5))
put('money', 'all-zero', b'\0' * 80)
put('money', 'all-ff', b'\xff' * 120)
