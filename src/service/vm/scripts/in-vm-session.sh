# in-vm-session.sh: the first program of an SSH session's command inside a VM
# (process/in-vm-command.ts), run by the VM's own /bin/sh. Like in-vm-command.sh, but the
# command keeps its stderr apart: it goes to fd 3, while fd 2 stays the launcher's own (so
# what nsenter says never mixes with what the command writes). No argument: the payload, one
# `exec env -i -- 'K=V'... 'program' 'arg'...` line whose every word is single-quoted,
# arrives on fd 4.
exec 5<&0 0<&4 4<&-
payload=$(/bin/cat)
exec 0<&5 5<&- 2>&3 3>&-
eval "$payload"
