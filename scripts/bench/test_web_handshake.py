"""The bench's WebSocket clients speak the `/rpc` handshake (docs/web.md, "The handshake"):
scripts/bench/fanout_receiver.c (built with -lcrypto, as scripts/bench/fanout builds it) gets the
known-answer vector right, completes the handshake with a server that holds the token, and sends
nothing after `auth.hello` to one that does not (scripts/rig/fake_rpc_server.py, whose own
arithmetic is checked against the vector first). No passtapd, no pcscd; about a second.

Run: python3 -m unittest scripts/bench/test_web_handshake.py (scripts/test does).
"""

import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load(name, path):
    loader = importlib.machinery.SourceFileLoader(name, os.path.join(ROOT, path))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    loader.exec_module(module)
    return module


fanout = load("bench_fanout", "scripts/bench/fanout")
fake = load("fake_rpc_server", "scripts/rig/fake_rpc_server.py")

# The spec's known-answer vector.
SECRET = "dGVzdC10b2tlbi1mb3ItdGhlLWhhbmRzaGFrZS12ZWN0b3I"
NAME = "till-1"
CLIENT_NONCE = bytes(range(0x00, 0x20))
SERVER_NONCE = bytes(range(0x20, 0x40))
SERVER_PROOF = "baa9fd6bbc22ed37f10db57bdd4b3513d12a1c098dbdf3880261275c125cf535"
CLIENT_PROOF = "8f154bdc076da9e82548c18a313835a36e9031825bffb2df6b2ff21b3f35aff2"
TIMEOUT_S = 10


class WebHandshakeTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="passtap-web-handshake-")
        cls.receiver = fanout.build_receiver(cls.work)
        cls.token_file = os.path.join(cls.work, "till-1.token")
        with open(os.open(cls.token_file, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write(SECRET + "\n")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    def fake_server(self, holds_token):
        record = os.path.join(self.work, "record-%s.jsonl" % self.id().rsplit(".", 1)[-1])
        process, port = fake.spawn(record, NAME, self.token_file) if holds_token else fake.spawn(record)

        def stop():
            process.terminate()
            process.wait(timeout=TIMEOUT_S)
            process.stdout.close()

        self.addCleanup(stop)
        return "ws://127.0.0.1:%d/rpc" % port, record

    def run_receiver(self, url, clients):
        """The receiver with `clients` WebSocket clients at `url`: (exit status, its JSON lines,
        stderr). Its stdin is closed once it is ready (or has exited), which ends it."""
        env = dict(os.environ, PASSTAP_WEB_TOKEN_NAME=NAME, PASSTAP_WEB_TOKEN_FILE=self.token_file)
        with tempfile.TemporaryFile("w+") as stderr:
            process = subprocess.Popen([self.receiver, url, str(clients), '["read.result"]'], env=env, text=True,
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
            try:
                first = process.stdout.readline()  # {"ready":N}, or nothing when it exits
                process.stdin.close()
                process.wait(timeout=TIMEOUT_S)
                out = first + process.stdout.read()
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait()
                process.stdout.close()
            stderr.seek(0)
            return process.returncode, [json.loads(line) for line in out.splitlines()], stderr.read()

    def test_the_fake_server_computes_the_known_answer_vector(self):
        self.assertEqual(fake.proof(SECRET, "server", NAME, CLIENT_NONCE, SERVER_NONCE), SERVER_PROOF)
        self.assertEqual(fake.proof(SECRET, "client", NAME, CLIENT_NONCE, SERVER_NONCE), CLIENT_PROOF)

    def test_the_receiver_computes_the_known_answer_vector(self):
        run = subprocess.run([self.receiver, "--self-test"], capture_output=True, text=True, timeout=TIMEOUT_S)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(json.loads(run.stdout), {"self_test": "ok"})

    def test_the_receiver_completes_the_handshake_with_a_server_that_holds_the_token(self):
        url, record = self.fake_server(holds_token=True)
        status, lines, stderr = self.run_receiver(url, 2)
        self.assertEqual(status, 0, stderr)
        self.assertEqual(lines[0], {"ready": 2})
        self.assertTrue(lines[-1]["done"])
        methods = [json.loads(entry["message"])["method"] for entry in fake.recorded(record) if "message" in entry]
        self.assertEqual(methods, ["auth.hello", "auth.prove", "events.subscribe"] * 2)

    def test_the_receiver_sends_nothing_more_to_a_server_without_the_token(self):
        url, record = self.fake_server(holds_token=False)
        status, lines, stderr = self.run_receiver(url, 2)
        self.assertEqual(status, 1)
        self.assertEqual(lines, [], "never ready")
        self.assertIn("did not prove it holds the token", stderr)
        messages = [json.loads(entry["message"]) for entry in fake.recorded(record) if "message" in entry]
        self.assertEqual([m["method"] for m in messages], ["auth.hello"], "only auth.hello, on one connection")
        self.assertEqual(messages[0]["params"]["token"], NAME)
        with open(record) as f:
            self.assertNotIn(SECRET, f.read())


if __name__ == "__main__":
    unittest.main()
