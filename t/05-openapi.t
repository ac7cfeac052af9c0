#!/usr/bin/env bash
# GET /openapi.json: the API description, served without credentials, is
# the committed openapi/openapi.json (generated from openapi/xborder.yaml)
# and names every operation of the routing table.
. "$(dirname "$0")/lib/api.sh"

api --noauth GET /openapi.json
is_status 200 "GET /openapi.json without credentials: 200"
jis '.openapi | startswith("3.1")' true "openapi 3.1"
jis '.info.version' '"2026-04-08"' "info.version is the API version label"
jok '.components.securitySchemes.basicAuth.scheme == "basic"' "Basic security scheme"
jok '.webhooks | type == "object" and length > 0' "webhook payloads described"
served=$(jq -S . <<<"$BODY")
committed=$(jq -S . "$XB_REPO/openapi/openapi.json")
is "$served" "$committed" "served document is openapi/openapi.json"

# Every row of src/routes.c is an operation of the document.
routes=0
while read -r method path; do
    routes=$((routes + 1))
    ok "$(jq -r --arg p "$path" --arg m "${method,,}" '.paths[$p][$m] != null' <<<"$BODY")" \
        "document describes $method $path"
done < <(sed -n 's/^[[:space:]]*{ M_\([A-Z]*\),[[:space:]]*"\([^"]*\)".*/\1 \2/p' "$XB_REPO/src/routes.c")
ok "$((routes >= 29))" "read the routing table ($routes routes)"

api GET /openapi.json
is_status 200 "GET /openapi.json with credentials: 200"
api --noauth POST /openapi.json '{}'
is_error 405 METHOD_NOT_ALLOWED "POST /openapi.json"

done_testing
