# join-cgroups.sh: joins a machine VM's cgroups, then runs the command that enters the VM
# (sandbox/join-command.ts), so nothing a command starts escapes the VM's limits.
# Arguments, all ours: the cgroup.procs files, then `--`, then the command.
while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done
shift
exec "$@"
