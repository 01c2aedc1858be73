# in-vm-command.sh: the first program of every command inside a VM (process/in-vm-command.ts),
# run by the VM's own /bin/sh. No argument: the payload, one `exec env -i -- 'K=V'...
# 'program' 'arg'...` line whose every word is single-quoted, arrives on fd 4.
# It reads the payload to its end (Node's pipes are sockets, which cannot be reopened through
# /dev/fd, so it becomes cat's stdin for a moment while the real stdin waits on fd 5), puts
# the real stdin back, joins stderr to stdout, and runs the payload.
exec 5<&0 0<&4 4<&-
payload=$(/bin/cat)
exec 0<&5 5<&- 2>&1
eval "$payload"
