# Run INSIDE a VM: `python3 in-vm-hold.py PORT COUNT FILE`: opens COUNT connections to
# 127.0.0.1:PORT, writes how many connected to FILE, then holds them all until killed.
import os
import socket
import sys
import time

port, count, done = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
held = []
for _ in range(count):
    try:
        held.append(socket.create_connection(("127.0.0.1", port), timeout=10))
    except OSError:
        pass
with open(done + ".tmp", "w") as f:
    f.write(str(len(held)))
os.rename(done + ".tmp", done)
while True:
    time.sleep(60)
