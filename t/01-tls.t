#!/usr/bin/env bash
# 01-tls.t - the TLS profile the stack's nginx serves, which is the
# production site's (both include nginx/snippets/xborder-tls.conf):
# TLS 1.2 and 1.3 only; under TLS 1.2 only ECDHE suites with AES-GCM or
# ChaCha20-Poly1305, so a CBC suite (ECDHE-*-AES128-SHA, which nginx
# negotiated before the profile) fails to handshake; TLS 1.1 is refused.
# Handshakes with openssl s_client; no HTTP request is sent.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
no_plan

hostport=${XB_BASE_URL#https://}
hostport=${hostport%%/*}
CERT=${XB_DEV_DIR:?}/nginx/cert.pem

# The suites' authentication follows the certificate's key: ECDSA for the
# EC key scripts/dev makes, RSA otherwise.
if openssl x509 -in "$CERT" -noout -text 2>/dev/null | grep -q 'Public Key Algorithm: id-ecPublicKey'; then
    AU=ECDSA
else
    AU=RSA
fi
note "server $hostport, certificate key: $AU"

# hello WHAT OPENSSL-ARGS...: one handshake; sets HS_OK (1 when it
# completed) and HS_CIPHER, HS_PROTO (what was negotiated).
hello() {
    local out
    out=$(timeout 15 openssl s_client -connect "$hostport" -servername 127.0.0.1 \
        "$@" </dev/null 2>&1) && HS_OK=1 || HS_OK=0
    # "New, TLSv1.2, Cipher is ECDHE-...", or "New, (NONE), Cipher is
    # (NONE)" when no handshake completed.
    HS_PROTO=$(sed -n 's/^New, \([^,]*\), Cipher is .*/\1/p' <<<"$out" | head -n 1)
    HS_CIPHER=$(sed -n 's/^New, [^,]*, Cipher is \(.*\)/\1/p' <<<"$out" | head -n 1)
    [[ -n $HS_CIPHER && $HS_CIPHER != '(NONE)' ]] || HS_OK=0
}

# --- TLS 1.2: AEAD suites with ECDHE only -------------------------------------------
for c in "ECDHE-$AU-AES128-GCM-SHA256" "ECDHE-$AU-AES256-GCM-SHA384" "ECDHE-$AU-CHACHA20-POLY1305"; do
    hello -tls1_2 -cipher "$c"
    ok "$HS_OK" "TLS 1.2 with $c: handshake completes"
    is "$HS_PROTO $HS_CIPHER" "TLSv1.2 $c" "TLS 1.2 with $c: that suite is negotiated"
done

for c in "ECDHE-$AU-AES128-SHA" "ECDHE-$AU-AES256-SHA" "ECDHE-$AU-AES128-SHA256" \
    "ECDHE-$AU-AES256-SHA384"; do
    hello -tls1_2 -cipher "$c"
    ok "$((!HS_OK))" "TLS 1.2 offering only $c (CBC): no handshake"
done

# A client offering everything it has still ends up on an AEAD suite.
hello -tls1_2 -cipher 'ALL:@SECLEVEL=0'
ok "$HS_OK" "TLS 1.2 offering every suite: handshake completes"
like "$HS_CIPHER" "^ECDHE-$AU-(AES(128|256)-GCM-SHA(256|384)|CHACHA20-POLY1305)\$" \
    "TLS 1.2 offering every suite: an ECDHE AEAD suite is negotiated ($HS_CIPHER)"

# --- TLS 1.3 yes, TLS 1.1 and 1.0 no ------------------------------------------------
hello -tls1_3
ok "$HS_OK" "TLS 1.3: handshake completes"
is "$HS_PROTO" TLSv1.3 "TLS 1.3: negotiated"

# @SECLEVEL=0 so that the client itself is willing to speak the old protocols.
for v in "tls1_1 TLS 1.1" "tls1 TLS 1.0"; do
    hello "-${v%% *}" -cipher 'ALL:@SECLEVEL=0'
    ok "$((!HS_OK))" "${v#* }: no handshake"
done

done_testing
