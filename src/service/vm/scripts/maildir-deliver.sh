# maildir-deliver.sh: delivers one mail message into the VM's Maildir (SPEC §4b), run inside the
# VM by its own /bin/sh as its root (fleet/mail-delivery.ts), never by a host process: the VM
# owns $HOME, so only a process of its own may follow whatever links are planted there.
# No argument. Input (stdin, written by the server): a line with the message's length in bytes,
# then the message itself (its Delivered-To line first).
# Output: one line, how many files wait in new/ once it is there. A message that arrives
# short (the server went away) is removed from tmp/ and never reaches new/: exit 65.
set -eu
umask 077
box="$HOME/Maildir"
mkdir -p "$box/tmp" "$box/new" "$box/cur"
IFS= read -r length
case $length in '' | *[!0-9]*) exit 65 ;; esac
# Maildir's unique name: time, process, randomness, host (the VM's name: no / or : in it).
name="$(date +%s).P$$R$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n').$(cat /proc/sys/kernel/hostname)"
head -c "$length" >"$box/tmp/$name"
if [ "$(($(wc -c <"$box/tmp/$name")))" -ne "$length" ]; then
  rm -f "$box/tmp/$name"
  exit 65
fi
mv "$box/tmp/$name" "$box/new/$name"
find "$box/new" -mindepth 1 -maxdepth 1 | wc -l
