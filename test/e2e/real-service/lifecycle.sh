# A client written for the real service, in the form of its documented curl examples
# (`curl -X POST <base>/exec -H "Authorization: Bearer $TOKEN" -d '<command>'`), driving a VM
# from birth to deletion: create it, run a command in it (whose exit code comes back in the
# real service's X-Exe-Exit header), delete it. Only BASE_URL differs from the real service's.
# Each answer goes to its own file in OUT for the test to read.
set -eu
b64url() { tr -d '\n=' | tr '+/' '-_'; }
P='{"exp":1900000000,"cmds":["new","ssh","rm","ls"]}'
SIG=$(printf '%s' "$P" | ssh-keygen -Y sign -f "$KEY" -n v0@exe.dev | sed '1d;$d' | b64url)
TOKEN="exe0.$(printf '%s' "$P" | base64 | b64url).$SIG"
api() { curl -s -X POST "$BASE_URL/exec" -H "Authorization: Bearer $TOKEN" "$@"; }
api -d 'new --name=lifecycle-vm' > "$OUT/new.json"
api -D "$OUT/ssh.headers" -d 'ssh lifecycle-vm echo hello from the vm' > "$OUT/ssh.out"
api -D "$OUT/fail.headers" -d 'ssh lifecycle-vm false' > "$OUT/fail.out"
api -d 'rm lifecycle-vm' > "$OUT/rm.json"
api -d 'ls' > "$OUT/ls.json"
