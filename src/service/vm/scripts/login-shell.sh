# login-shell.sh: the `shell` of an SSH session (`ssh vm+web@...`, with a terminal or without),
# run inside the VM as root by its own /bin/sh (process/session-command.ts): root's login shell
# as sshd starts it, its name with a leading `-` (`-bash`: /etc/profile and ~/.profile are
# read), bash when the VM has it. dash cannot name the program it starts, so without bash it
# is `sh -l`, which reads the same files. Interactive when its stdin is the session's terminal.
# No argument.
if [ -x /bin/bash ]; then exec /bin/bash -c 'exec -a -bash /bin/bash'; fi
exec /bin/sh -l
