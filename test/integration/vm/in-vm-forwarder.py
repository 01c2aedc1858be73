# Run INSIDE a VM: `python3 in-vm-forwarder.py PORT TO`: forwards every connection to 127.0.0.1:PORT
# to 127.0.0.1:TO byte for byte, as `socat TCP-LISTEN:PORT,fork TCP:127.0.0.1:TO` does (the red
# team's proxy loop, with the server's own HTTP listener as TO).
import socket
import sys
import threading

port, to = int(sys.argv[1]), int(sys.argv[2])


def pipe(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def serve(client):
    try:
        upstream = socket.create_connection(("127.0.0.1", to))
    except OSError:
        client.close()
        return
    threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
    pipe(upstream, client)


listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", port))
listener.listen(128)
while True:
    conn, _ = listener.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
