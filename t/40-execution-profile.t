#!/usr/bin/env bash
# 40-execution-profile.t - GET and PATCH /sandbox/lightning-execution-profile
# on a platform of its own: defaults, partial updates, bounds, types,
# the X-Platform-Id header, isolation.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
no_plan

P=/sandbox/lightning-execution-profile

api GET $P
is_status 200 "main platform: GET $P 200"
main_profile=$BODY

if ! new_platform t40; then
    fail "second platform created with xborderctl"
    done_testing
    exit
fi
pass "second platform created with xborderctl"
plat=$NP_ID
use_creds "$NP_CLIENT_ID" "$NP_SECRET"

# profile_is BTC LOCK WHAT: $BODY is exactly this profile.
profile_is() {
    has_keys "$BODY" 'btcFiatSpreadBps lockPriceDurationSeconds' "$3: exactly btcFiatSpreadBps, lockPriceDurationSeconds"
    jis . "{\"btcFiatSpreadBps\":$1,\"lockPriceDurationSeconds\":$2}" "$3: $1 / $2"
}

api GET $P
is_status 200 "GET $P: 200"
profile_is 50 300 "fresh platform: defaults"

# --- partial updates ------------------------------------------------------------
api PATCH $P '{"btcFiatSpreadBps":75}'
is_status 200 "PATCH btcFiatSpreadBps: 200"
profile_is 75 300 "PATCH btcFiatSpreadBps only"

api PATCH $P '{"lockPriceDurationSeconds":120}'
is_status 200 "PATCH lockPriceDurationSeconds: 200"
profile_is 75 120 "PATCH lockPriceDurationSeconds only"

api GET $P
profile_is 75 120 "GET after the partial updates"

api PATCH $P '{"btcFiatSpreadBps":60,"lockPriceDurationSeconds":90}'
is_status 200 "PATCH both: 200"
profile_is 60 90 "PATCH both"

api PATCH $P '{}'
is_status 200 "PATCH {}: 200"
profile_is 60 90 "PATCH {}: unchanged"

api --ctype 'application/json; charset=utf-8' PATCH $P '{"btcFiatSpreadBps":61}'
is_status 200 "PATCH with charset=utf-8: 200"
profile_is 61 90 "PATCH with charset=utf-8"

# --- bounds ---------------------------------------------------------------------------
for v in 0 10000 1 9999; do
    api PATCH $P "{\"btcFiatSpreadBps\":$v}"
    is_status 200 "btcFiatSpreadBps $v: 200"
    profile_is "$v" 90 "btcFiatSpreadBps $v"
done
for v in 30 3600 31 3599; do
    api PATCH $P "{\"lockPriceDurationSeconds\":$v}"
    is_status 200 "lockPriceDurationSeconds $v: 200"
    profile_is 9999 "$v" "lockPriceDurationSeconds $v"
done

# bad FIELD VALUE: 400 naming FIELD, profile unchanged afterwards.
bad() {
    api PATCH $P "{\"$1\":$2}"
    is_error 400 INVALID_REQUEST "PATCH $1 $2"
    has_details "$1" "PATCH $1 $2: details.$1"
}
for v in -1 10001 100000 -10000 18446744073709551616 1.5 0.0001 '"10"' true null '[]' '{}' '"abc"'; do
    bad btcFiatSpreadBps "$v"
done
for v in 29 3601 0 -1 -30 86400 99999999999999999999 30.5 '"300"' false null '[300]' '{"s":300}'; do
    bad lockPriceDurationSeconds "$v"
done

api PATCH $P '{"btcFiatSpreadBps":10,"lockPriceDurationSeconds":1}'
is_error 400 INVALID_REQUEST "PATCH a good and a bad value"
has_details lockPriceDurationSeconds "PATCH a good and a bad value: details.lockPriceDurationSeconds"
api PATCH $P '{"btcFiatSpreadBps":-1,"lockPriceDurationSeconds":1}'
is_error 400 INVALID_REQUEST "PATCH two bad values"
jok '.details | has("btcFiatSpreadBps") and has("lockPriceDurationSeconds")' "PATCH two bad values: details names both"
api PATCH $P '{"btcFiatSpreadBps":10,"spread":1}'
is_error 400 INVALID_REQUEST "PATCH with an unknown field"
has_details spread "PATCH with an unknown field: details.spread"
api PATCH $P '{"btcFiatSpreadBps":10,"platformId":"x"}'
is_error 400 INVALID_REQUEST "PATCH with platformId"
has_details platformId "PATCH with platformId: details.platformId"
api PATCH $P '[{"btcFiatSpreadBps":10}]'
is_error 400 INVALID_REQUEST "PATCH with a top-level array"
api PATCH $P '{"btcFiatSpreadBps":10'
is_error 400 INVALID_REQUEST "PATCH with malformed JSON"
api --ctype text/plain PATCH $P '{"btcFiatSpreadBps":10}'
is_error 415 UNSUPPORTED_MEDIA_TYPE "PATCH with text/plain"

api GET $P
profile_is 9999 3599 "profile unchanged by the rejected PATCHes"

# --- X-Platform-Id ------------------------------------------------------------------------------
XP=X-Platform-Id
api PATCH $P '{"btcFiatSpreadBps":42}' -H "$XP: $plat"
is_status 200 "PATCH with X-Platform-Id = own platform: 200"
profile_is 42 3599 "PATCH with X-Platform-Id = own platform"
api GET $P '' -H "$XP: $plat"
is_status 200 "GET with X-Platform-Id = own platform: 200"
profile_is 42 3599 "GET with X-Platform-Id = own platform"

upper=${plat^^}
api PATCH $P '{"btcFiatSpreadBps":43}' -H "$XP: $upper"
is_status 200 "PATCH with X-Platform-Id = own platform in upper case (matches the UUIDv4 pattern): 200"
profile_is 43 3599 "PATCH with upper-case own X-Platform-Id"
api GET $P '' -H "$XP: $upper"
is_status 200 "GET with X-Platform-Id = own platform in upper case: 200"

v4=$plat
v1_like="${v4:0:14}1${v4:15}"                   # version nibble 1
variant_c="${v4:0:19}c${v4:20}"                  # variant nibble outside 8..b
for bad in abc "$v1_like" "$variant_c" a8098c1a-f86e-11da-bd1a-00112444be1e \
    "${v4//-/}" "{$v4}" "urn:uuid:$v4" "${v4:0:35}" "${v4}0" "${v4}x" "Platform:$v4"; do
    api PATCH $P '{"btcFiatSpreadBps":44}' -H "$XP: $bad"
    is_error 400 INVALID_REQUEST "PATCH with X-Platform-Id '$bad'"
    has_details "$XP" "PATCH with X-Platform-Id '$bad': details[\"X-Platform-Id\"]"
    api GET $P '' -H "$XP: $bad"
    is_error 400 INVALID_REQUEST "GET with X-Platform-Id '$bad'"
    has_details "$XP" "GET with X-Platform-Id '$bad': details[\"X-Platform-Id\"]"
done

for other in "$(uuid4)" "$XB_PLATFORM_ID" "${XB_PLATFORM_ID^^}"; do
    api PATCH $P '{"btcFiatSpreadBps":45}' -H "$XP: $other"
    is_error 403 FORBIDDEN "PATCH with X-Platform-Id of another platform ($other)"
    api GET $P '' -H "$XP: $other"
    is_error 403 FORBIDDEN "GET with X-Platform-Id of another platform ($other)"
done

api GET $P
profile_is 43 3599 "profile unchanged by the refused X-Platform-Id requests"

# The main platform's root token cannot reach this platform either.
api --as "$XB_CLIENT_ID" "$XB_CLIENT_SECRET" PATCH $P '{"btcFiatSpreadBps":46}' -H "$XP: $plat"
is_error 403 FORBIDDEN "main platform's token with X-Platform-Id of the other platform"

# --- isolation -------------------------------------------------------------------------
use_root
api GET $P
is_status 200 "main platform: GET $P 200"
jis . "$main_profile" "main platform: profile untouched by the other platform's PATCHes"

api GET $P '' -H "$XP: $XB_PLATFORM_ID"
is_status 200 "main platform: GET with its own X-Platform-Id: 200"
jis . "$main_profile" "main platform: GET with its own X-Platform-Id: its profile"

done_testing
