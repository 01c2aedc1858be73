# setup-wrapper.sh: runs a VM's setup script inside the VM (setup-script.ts), as the VM's root.
# Arguments: $1 the script (the user's, run by /bin/sh -c and never read by a host process);
# $2 the log file ('' = $HOME/exectl-setup.log).
# The output goes to the log file, not through a pipe, so a server the script leaves running
# in the background never holds the setup open. Where the root is read-only (a VM without a
# root file system of its own, the process runtime) the log is in $HOME. Then the last
# non-blank line of the log is the command's whole output.
log=${2:-"$HOME/exectl-setup.log"}
{ mkdir -p "${log%/*}" && : > "$log"; } 2>/dev/null || { log="$HOME/exectl-setup.log"; : > "$log"; } || exit 125
/bin/sh -c "$1" > "$log" 2>&1 < /dev/null
code=$?
grep -v '^[[:space:]]*$' "$log" | tail -n 1
exit $code
