"""passtapd as the benches run it: the built binary with a config of theirs, and one socket client
subscribed to events that paces and checks the taps (docs/socket-api.md, "Methods")."""

import json
import os
import socket
import subprocess
import time

from .vcard import RigProcess, stop_process
from .waits import Failure


class Daemon(RigProcess):
    """passtapd started with `config` (its socket at `socket_path`, its stdout and stderr in
    `log_path`), and a client of that socket subscribed to the event `kinds`, once the socket
    exists. Every wait has the deadline `timeout`. `command` replaces the plain
    `binary --config config` (e.g. under valgrind), `env` its environment. `stop` ends both."""

    def __init__(self, binary, config, socket_path, log_path, kinds, timeout=15, command=None, env=None):
        self.socket_path = socket_path
        self.log_path = log_path
        self.timeout = timeout
        self.log = open(log_path, "w")
        self.process = subprocess.Popen(command or [binary, "--config", config], stdout=self.log, stderr=self.log,
                                        env=env)
        self.client = None
        self.wait_ready(lambda: os.path.exists(socket_path), "passtapd's socket", timeout)
        try:
            self.client = socket.socket(socket.AF_UNIX)
            self.client.settimeout(timeout)
            self.client.connect(socket_path)
            self.stream = self.client.makefile("rw")
            answer = self.send({"jsonrpc": "2.0", "id": 1, "method": "events.subscribe",
                                "params": {"kinds": list(kinds)}})
            if "result" not in answer:
                raise Failure("events.subscribe: %s" % answer)
        except BaseException:
            self.stop()
            raise

    def exit_details(self):
        return ": " + self.log_text()

    def log_text(self):
        """The end of passtapd's log, for a failure's message."""
        with open(self.log_path) as f:
            return f.read()[-2000:]

    def send(self, message):
        """Sends a request on the subscribed client and returns the next line (its answer, as no
        event comes while the bench is not tapping)."""
        self.stream.write(json.dumps(message) + "\n")
        self.stream.flush()
        return json.loads(self.stream.readline())

    def request(self, method, params=None):
        """The `result` of one request on a connection of its own (the subscribed client's lines
        stay events)."""
        message = {"jsonrpc": "2.0", "id": 1, "method": method}
        if params is not None:
            message["params"] = params
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(self.timeout)
            s.connect(self.socket_path)
            with s.makefile("rw") as f:
                f.write(json.dumps(message) + "\n")
                f.flush()
                answer = json.loads(f.readline())
        if "result" not in answer:
            raise Failure("%s: %s" % (method, answer))
        return answer["result"]

    def next_event_at(self, kind):
        """The params of the next event of `kind` and the CLOCK_MONOTONIC ns its line arrived;
        other kinds are skipped, and `events.dropped` fails the run."""
        while True:
            try:
                line = self.stream.readline()
            except socket.timeout:
                raise Failure("no %s within %g s; passtapd's log: %s" % (kind, self.timeout, self.log_text()))
            arrived = time.monotonic_ns()
            if not line:
                raise Failure("passtapd closed the socket waiting for %s: %s" % (kind, self.log_text()))
            message = json.loads(line)
            if message.get("method") == "events.dropped":
                raise Failure("the control connection lost events: %s" % line.strip())
            params = message.get("params", {})
            if params.get("kind") == kind:
                return params, arrived

    def next_event(self, kind):
        """The params of the next event of `kind` (as `next_event_at`)."""
        return self.next_event_at(kind)[0]

    def stop(self, timeout=10):
        """Closes the client, then SIGTERM (SIGKILL after `timeout` seconds) and waits for
        passtapd."""
        if self.client is not None:
            self.client.close()
            self.client = None
        stop_process(self.process, timeout)
        self.log.close()
