"""The webhook receiver's own tests (scripts/rig/webhook_receiver.py), run as a process and
reached over real HTTPS with its throwaway CA, as the Swift tests reach it.

python3 -m unittest scripts/rig/test_webhook_receiver.py
"""

import base64
import http.client
import json
import os
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import webhook_receiver  # noqa: E402

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "webhook_receiver.py")
SECRET = "whsec_" + base64.b64encode(bytes(range(32))).decode()
KEY = bytes(range(32))


class SignatureTests(unittest.TestCase):
    def test_published_vector(self):
        # Standard Webhooks' own vector (standard-webhooks/standard-webhooks,
        # libraries/go/webhook_test.go TestWebhookSign, MIT): not made by us.
        key = webhook_receiver.secret_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        signature = webhook_receiver.sign(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, b'{"test": 2432232314}')
        self.assertEqual(signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")

    def test_any_of_several_signatures_is_enough(self):
        good = webhook_receiver.sign(KEY, "a:1", 10, b"{}")
        self.assertTrue(webhook_receiver.signature_valid(KEY, "a:1", "10", b"{}", "v1,AAAA " + good))
        self.assertFalse(webhook_receiver.signature_valid(KEY, "a:1", "11", b"{}", good))
        self.assertFalse(webhook_receiver.signature_valid(KEY, "a:1", "10", b"{} ", good))


class ReceiverTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="passtap-webhook-test-")
        self.process = subprocess.Popen(
            [sys.executable, SCRIPT, "--dir", self.dir, "--secret", SECRET],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = self.process.stdout.readline()  # "ready {...}", written once it listens
        self.assertTrue(line.startswith("ready "), line)
        self.ready = json.loads(line[len("ready "):])
        self.tls = ssl.create_default_context(cafile=self.ready["ca"])

    def tearDown(self):
        self.process.terminate()
        self.process.wait(10)
        self.process.stdout.close()

    def control(self, line):
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(15)
            sock.connect(self.ready["control"])
            sock.sendall(line.encode() + b"\n")
            answer = json.loads(sock.makefile().readline())
        self.assertTrue(answer["ok"], answer)
        return answer

    def post(self, msg_id="i:1", body=b'{"data":{}}', timestamp=None, signature=None, context=None, timeout=15):
        timestamp = str(int(time.time())) if timestamp is None else str(timestamp)
        signature = signature or webhook_receiver.sign(KEY, msg_id, timestamp, body)
        connection = http.client.HTTPSConnection("127.0.0.1", self.ready["port"], context=context or self.tls,
                                                 timeout=timeout)
        try:
            connection.request("POST", "/", body=body, headers={
                "content-type": "application/json", "webhook-id": msg_id,
                "webhook-timestamp": timestamp, "webhook-signature": signature})
            response = connection.getresponse()
            response.read()
            return response.status, response.getheader("Retry-After")
        finally:
            connection.close()

    def lines(self, name):
        with open(os.path.join(self.dir, name)) as f:
            return [json.loads(line) for line in f]

    def test_valid_request_is_recorded_before_its_200(self):
        self.assertEqual(self.post("i:1", b'{"n":1}'), (200, None))
        self.assertEqual(self.post("i:2", b'{"n":2}'), (200, None))
        events = self.lines("events.jsonl")
        self.assertEqual([(e["id"], e["body"]) for e in events], [("i:1", '{"n":1}'), ("i:2", '{"n":2}')])
        self.assertEqual(self.control("stats")["accepted"], 2)

    def test_bad_signature_is_refused_401_and_counted(self):
        self.assertEqual(self.post(signature="v1," + base64.b64encode(b"x" * 32).decode())[0], 401)
        stats = self.control("stats")
        self.assertEqual((stats["bad_signatures"], stats["accepted"]), (1, 0))
        self.assertEqual(self.lines("events.jsonl"), [])
        self.assertFalse(self.lines("attempts.jsonl")[0]["valid"])

    def test_old_timestamp_is_refused_401(self):
        self.assertEqual(self.post(timestamp=int(time.time()) - 301)[0], 401)
        self.assertEqual(self.control("stats")["bad_timestamps"], 1)

    def test_answers_500_and_429_with_retry_after_then_200(self):
        self.control("answer 500")
        self.assertEqual(self.post("i:1"), (500, None))
        self.control("answer 429 7")
        self.assertEqual(self.post("i:1"), (429, "7"))
        self.control("answer 503 Wed, 21 Oct 2015 07:28:00 GMT")
        self.assertEqual(self.post("i:1"), (503, "Wed, 21 Oct 2015 07:28:00 GMT"))
        self.control("reset")
        self.assertEqual(self.post("i:1"), (200, None))
        self.assertEqual([e["id"] for e in self.lines("events.jsonl")], ["i:1"])
        self.assertEqual([a["status"] for a in self.lines("attempts.jsonl")], [500, 429, 503, 200])

    def test_refuses_one_id_or_all_with_400(self):
        self.control("refuse i:2")
        self.assertEqual([self.post(i)[0] for i in ("i:1", "i:2", "i:3")], [200, 400, 200])
        self.control("refuse all")
        self.assertEqual(self.post("i:4")[0], 400)

    def test_down_refuses_connections_and_up_listens_again_on_the_same_port(self):
        self.control("down")
        with self.assertRaises(ConnectionRefusedError):
            self.post()
        self.assertFalse(self.control("stats")["listening"])
        self.assertEqual(self.control("up")["port"], self.ready["port"])
        self.assertEqual(self.post()[0], 200)

    def test_slow_answers_after_the_delay(self):
        # The delay is 20 times the client's timeout: the client gives up first.
        self.control("delay 4000")
        with self.assertRaises(TimeoutError):
            self.post(timeout=0.2)
        self.control("delay 0")
        self.assertEqual(self.post()[0], 200)

    def test_certificate_is_not_trusted_without_the_ca(self):
        with self.assertRaises(ssl.SSLCertVerificationError):
            self.post(context=ssl.create_default_context())

    def test_unknown_command_is_refused(self):
        with socket.socket(socket.AF_UNIX) as sock:
            sock.connect(self.ready["control"])
            sock.sendall(b"dance\n")
            answer = json.loads(sock.makefile().readline())
        self.assertFalse(answer["ok"])
        self.assertIn("unknown command", answer["error"])


if __name__ == "__main__":
    unittest.main()
