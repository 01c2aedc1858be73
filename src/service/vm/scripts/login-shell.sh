# login-shell.sh: the `shell` of an SSH session without a terminal (`ssh -T vm+web@...`), run
# inside the VM as root by its own /bin/sh (process/session-command.ts): a login shell reading
# commands from the session's stdin, bash when the VM has it, as sshd would start root's shell.
# No argument.
if [ -x /bin/bash ]; then exec /bin/bash -l; fi
exec /bin/sh -l
