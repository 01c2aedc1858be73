# sftp-server.sh: the `sftp` subsystem of an SSH session, run inside the VM as root by its own
# /bin/sh (ssh/vm-session.ts). Runs the first OpenSSH sftp-server found in the VM: the host's,
# visible through the system folders (package openssh-sftp-server), or one installed inside.
# No argument: its stdin and stdout are the session's.
for server in /usr/lib/openssh/sftp-server /usr/libexec/openssh/sftp-server \
  /usr/libexec/sftp-server /usr/lib/ssh/sftp-server /usr/lib/sftp-server; do
  if [ -x "$server" ]; then exec "$server"; fi
done
echo 'sftp-server is not installed in this VM: apt-get install openssh-sftp-server' >&2
exit 127
