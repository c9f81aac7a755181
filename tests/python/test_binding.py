"""test_binding.py — the Python binding (bindings/python/sbxsup.py) against the real sbxsup."""
import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
import sbxsup  # noqa: E402


class BindingTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.ws = self.tmp.name
        os.chmod(self.ws, 0o755)

    def tearDown(self):
        self.tmp.cleanup()

    def test_clean_run(self):
        r = sbxsup.run(["sh", "-c", "cat; echo done"], stdin=b"payload\n", workspace=self.ws, tag="t-clean")
        self.assertEqual(r.exit, 0)
        self.assertEqual(r.stdout, b"payload\ndone\n")
        self.assertEqual(r.verdict, "clean")
        self.assertRegex(r.run_id or "", r"^[0-9a-f]{32}$")
        self.assertEqual(r.record.get("tag"), "t-clean")
        self.assertEqual(r.record.get("status"), "exited")

    def test_contained_secret_read(self):
        home = os.path.join(self.ws, "home")
        os.makedirs(os.path.join(home, ".ssh"))
        key = os.path.join(home, ".ssh", "id_rsa")
        with open(key, "w") as f:
            f.write("FAKE-KEY-FOR-BINDING-TEST\n")
        ws = os.path.join(self.ws, "w")
        os.mkdir(ws)
        env = dict(os.environ, HOME=home)
        r = sbxsup.run(["cat", key], workspace=ws, env=env)
        self.assertNotEqual(r.exit, 0)
        self.assertNotIn(b"FAKE-KEY", r.stdout)
        self.assertEqual(r.verdict, "contained")
        self.assertGreater(sum(r.counts.get(s, 0) for s in ("critical", "high", "medium", "low")), 0)

    def test_exit_status_and_signal(self):
        r = sbxsup.run(["sh", "-c", "exit 7"], workspace=self.ws)
        self.assertEqual((r.exit, r.record.get("status")), (7, "exited"))
        r = sbxsup.run(["sh", "-c", "kill -TERM $$"], workspace=self.ws)
        self.assertEqual((r.exit, r.record.get("signal"), r.record.get("status")), (128 + 15, 15, "signaled"))

    def test_timeout(self):
        r = sbxsup.run(["sleep", "30"], workspace=self.ws, timeout=0.5)
        self.assertTrue(r.timed_out)
        self.assertEqual(r.exit, 124)
        self.assertEqual(r.record.get("status"), "timeout")

    def test_refusal_has_reason_code(self):
        bad = os.path.join(self.ws, "bad.json")
        with open(bad, "w") as f:
            f.write('{"sbxsup": 1, "name": "x", "capabilities": [1]}')
        r = sbxsup.run(["true"], manifest=bad, workspace=self.ws)
        self.assertTrue(r.refused)
        self.assertEqual(r.exit, 125)
        self.assertEqual(r.reason_code, "bad_manifest")
        r = sbxsup.run(["/nonexistent/tool"], workspace=self.ws)
        self.assertEqual(r.exit, 127)
        self.assertEqual(r.reason_code, "command_not_found")

    def test_example_runtime(self):
        import subprocess
        out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "runtime", "invoke_executor.py")],
                             capture_output=True, check=True, timeout=300).stdout.decode()
        lines = {l.split()[0]: l for l in out.splitlines() if l.strip()}
        self.assertIn("verdict=clean", lines["notes_search.py"])
        self.assertRegex(lines["hostile.py"], r"verdict=(contained|breach)")

    def test_shadow(self):
        with open(os.path.join(self.ws, "keep.txt"), "w") as f:
            f.write("orig\n")
        r = sbxsup.run(["sh", "-c", "echo changed > keep.txt; echo x > new.txt; rm -f gone"], workspace=self.ws,
                       shadow=True)
        self.assertEqual(r.exit, 0)
        self.assertEqual(r.shadow["count"]["created"], 1)
        self.assertEqual(r.shadow["count"]["modified"], 1)
        with open(os.path.join(self.ws, "keep.txt")) as f:
            self.assertEqual(f.read(), "orig\n")            # untouched until the commit
        self.assertFalse(os.path.exists(os.path.join(self.ws, "new.txt")))
        diff = sbxsup.shadow_diff(r.run_id)
        self.assertIn("+changed", diff)
        self.assertEqual(sbxsup.shadow_changes(r.run_id)["hash"], r.shadow["hash"])
        c = sbxsup.shadow_commit(r.run_id, ["new.txt"])       # a partial commit
        self.assertTrue(c.ok)
        self.assertTrue(os.path.exists(os.path.join(self.ws, "new.txt")))
        with open(os.path.join(self.ws, "keep.txt")) as f:
            self.assertEqual(f.read(), "orig\n")
        sbxsup.shadow_discard(r.run_id)
        with self.assertRaises(sbxsup.SbxsupError):
            sbxsup.shadow_diff(r.run_id)

    def test_example_shadow_review(self):
        import subprocess
        p = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "runtime", "shadow_review.py"), "--yes",
                            "--workspace", self.ws], capture_output=True, timeout=300)
        out = p.stdout.decode()
        self.assertEqual(p.returncode, 0, out + p.stderr.decode())
        self.assertIn("+++ b/report.txt", out)
        self.assertIn("committed", out)
        self.assertTrue(os.path.exists(os.path.join(self.ws, "report.txt")))


class ServerTest(unittest.TestCase):
    """run(..., server=PATH): the same results through `sbxsup serve`, no sbxsup process per call."""

    @classmethod
    def setUpClass(cls):
        import subprocess
        import time
        cls.tmp = tempfile.TemporaryDirectory()
        sockdir = os.path.join(cls.tmp.name, "sock")
        os.mkdir(sockdir, 0o700)
        cls.sock = os.path.join(sockdir, "s")
        cls.audit = os.path.join(cls.tmp.name, "audit")
        cls.srv = subprocess.Popen([sbxsup.find_sbxsup(), "serve", "--socket", cls.sock, "--quiet", "-a", cls.audit],
                                   stderr=subprocess.PIPE)
        for _ in range(200):
            if os.path.exists(cls.sock) or cls.srv.poll() is not None:
                break
            time.sleep(0.05)
        if not os.path.exists(cls.sock):
            raise unittest.SkipTest("sbxsup serve did not start: %s" % cls.srv.stderr.read().decode()[-300:])

    @classmethod
    def tearDownClass(cls):
        cls.srv.terminate()
        cls.srv.wait(timeout=30)
        cls.srv.stderr.close()
        cls.tmp.cleanup()

    def setUp(self):
        self.ws = tempfile.mkdtemp(dir=self.tmp.name)
        os.chmod(self.ws, 0o755)

    def test_server_clean_run(self):
        r = sbxsup.run(["sh", "-c", "cat; echo done; echo err >&2"], stdin=b"payload\n", workspace=self.ws,
                       tag="srv-clean", server=self.sock)
        self.assertEqual((r.exit, r.stdout), (0, b"payload\ndone\n"))
        # the executor's stderr, after sbxsup's own warnings for layers the host lacks (as a user)
        self.assertEqual([l for l in r.stderr.splitlines() if not l.startswith(b"sbxsup: ")], [b"err"])
        self.assertEqual((r.verdict, r.record.get("tag"), r.record.get("status")), ("clean", "srv-clean", "exited"))
        self.assertRegex(r.run_id or "", r"^[0-9a-f]{32}$")
        with open(self.audit) as f:
            runs = [json.loads(l)["run"] for l in f if '"run.end"' in l]
        self.assertIn(r.run_id, runs)

    def test_server_contained_and_exit(self):
        home = os.path.join(self.ws, "home")
        os.makedirs(os.path.join(home, ".ssh"))
        key = os.path.join(home, ".ssh", "id_rsa")
        with open(key, "w") as f:
            f.write("FAKE-KEY-FOR-SERVER-TEST\n")
        ws = os.path.join(self.ws, "w")
        os.mkdir(ws)
        r = sbxsup.run(["cat", key], workspace=ws, env=dict(os.environ, HOME=home), server=self.sock)
        self.assertNotIn(b"FAKE-KEY", r.stdout)
        self.assertEqual(r.verdict, "contained")
        r = sbxsup.run(["sh", "-c", "exit 7"], workspace=self.ws, server=self.sock)
        self.assertEqual((r.exit, r.record.get("status")), (7, "exited"))

    def test_server_refusal_and_timeout(self):
        bad = os.path.join(self.ws, "bad.json")
        with open(bad, "w") as f:
            f.write('{"sbxsup": 1, "name": "x", "capabilities": [1]}')
        r = sbxsup.run(["true"], manifest=bad, workspace=self.ws, server=self.sock)
        self.assertEqual((r.refused, r.exit, r.reason_code), (True, 125, "bad_manifest"))
        r = sbxsup.run(["sleep", "30"], workspace=self.ws, timeout=0.5, server=self.sock)
        self.assertEqual((r.timed_out, r.exit), (True, 124))

    def test_server_unreachable(self):
        with self.assertRaises(sbxsup.SbxsupError):
            sbxsup.run(["true"], server=os.path.join(self.tmp.name, "none"))


if __name__ == "__main__":
    unittest.main()
