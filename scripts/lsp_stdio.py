"""A minimal LSP client over a server's stdio, for the benchmark scripts: frames messages, reads
them, and answers the server's own requests with null."""
import json, subprocess


class Server:
    def __init__(self, command, env=None):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, env=env)
        self.pid = self.process.pid

    def send(self, message):
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def receive(self):
        length = None
        while True:
            header = self.process.stdout.readline().strip()
            if not header:
                break
            if header.lower().startswith(b"content-length:"):
                length = int(header.split(b":")[1])
        message = json.loads(self.process.stdout.read(length))
        if "id" in message and "method" in message:
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
        return message

    def wait(self, predicate):
        while True:
            message = self.receive()
            if predicate(message):
                return message

    def exit(self):
        """`shutdown`, `exit`, and the process's end."""
        self.send({"jsonrpc": "2.0", "id": "shutdown", "method": "shutdown"})
        self.wait(lambda m: m.get("id") == "shutdown")
        self.send({"jsonrpc": "2.0", "method": "exit"})
        self.process.wait()
