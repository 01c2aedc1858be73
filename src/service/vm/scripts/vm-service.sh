# vm-service.sh: an image's command as a service (SPEC §4a `--command`), started by a machine
# VM's init at every boot, run by the VM's own /bin/sh inside the VM as its root. It never
# runs on the host: its words are the image's and the user's.
# Arguments: $1 the working folder; then NAME=VALUE words (the command's environment), then
# `--`; then the command and its arguments.
# The command starts again a second after it ends, whatever its exit code; its output and a
# line for each end are appended to /var/log/exectl-command.log.
dir=$1
shift
# shellcheck disable=SC2163 # the word is NAME=VALUE: export assigns and exports it as it is
while [ "$1" != -- ]; do export "$1"; shift; done
shift
log=/var/log/exectl-command.log
mkdir -p /var/log 2>/dev/null
{ : >> "$log"; } 2>/dev/null || log=/dev/null
cd "$dir" 2>/dev/null || cd /
while :; do
  "$@" >> "$log" 2>&1 < /dev/null
  echo "exectl: the command ended with exit code $?; it starts again in 1 s" >> "$log"
  sleep 1
done
