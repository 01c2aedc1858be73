# join-machine.sh: the host-side start of every command in a machine VM and of its door helper
# (sandbox/join-command.ts joinCgroupsFirst),
# as host root: gives itself the OOM score of the VM's processes, joins the VM's cgroups, then
# runs the command that enters the VM. What the command starts inherits both: nothing of it
# escapes the VM's limits, and under memory pressure it goes before the VM's init.
# Arguments, all ours: $1 the OOM score; then the cgroup.procs files, then `--`, then the
# command.
# (A server that already runs with a higher score keeps it: lowering needs a privilege.)
echo "$1" 2>/dev/null > /proc/self/oom_score_adj || :
shift
while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done
shift
exec "$@"
