# smtp-client.py: sends one message with Python's smtplib and prints what the server answered,
# as one JSON line: {"code": N, "message": "..."} (250 when every recipient took it).
# Arguments: PORT FROM RECIPIENT[,RECIPIENT...] [SIZE_BYTES]. The message comes on stdin, or,
# given SIZE_BYTES, is made of that many bytes of body lines.
import json
import smtplib
import sys

port, sender, recipients = int(sys.argv[1]), sys.argv[2], sys.argv[3].split(",")
if len(sys.argv) > 4:
    size = int(sys.argv[4])
    line = b"x" * 76 + b"\r\n"
    message = b"Subject: big\r\n\r\n" + line * (size // len(line) + 1)
else:
    message = sys.stdin.buffer.read()
try:
    with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
        client.sendmail(sender, recipients, message)
    print(json.dumps({"code": 250, "message": "sent"}))
except smtplib.SMTPRecipientsRefused as refused:
    code, text = next(iter(refused.recipients.values()))
    print(json.dumps({"code": code, "message": text.decode()}))
except smtplib.SMTPResponseException as error:
    print(json.dumps({"code": error.smtp_code, "message": error.smtp_error.decode()}))
