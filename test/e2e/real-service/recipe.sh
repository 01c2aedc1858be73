# The shell recipe of SPEC §1.1 with the real service's names (SPEC §12): the `exe0.` prefix
# and the namespace `v0@exe.dev`, as code written for the real service makes its tokens, then
# its documented first call, `whoami`. Run as is; only the base URL differs from the real
# service's (BASE_URL, which would be https://exe.dev), and KEY names the signing key.
b64url() { tr -d '\n=' | tr '+/' '-_'; }
P='{"exp":1900000000,"cmds":["whoami"]}'
SIG=$(printf '%s' "$P" | ssh-keygen -Y sign -f "$KEY" -n v0@exe.dev | sed '1d;$d' | b64url)
TOKEN="exe0.$(printf '%s' "$P" | base64 | b64url).$SIG"
curl -s -X POST "$BASE_URL/exec" -H "Authorization: Bearer $TOKEN" -d 'whoami'
