"""The fuzz build compiles only what the fuzz targets need: PassTapFuzzTargets must not reach the
daemon, its listeners or the reader backends through any chain of targets (scripts/fuzz builds all
it reaches with ASan; docs/development.md, "Fuzzing"). Reads the package graph from `swift package describe`."""

import json
import os
import subprocess
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What the ASan build must not compile, and the product it must not link.
KEPT_OUT = {"PassTapDaemon", "PassTapHTTP", "PassTapMetrics", "PCSCBackend", "NFCBackend", "passtapd"}
KEPT_OUT_PRODUCTS = {"Prometheus", "Metrics", "CoreMetrics", "NIOHTTP1", "NIOWebSocket"}


def targets():
    described = subprocess.run(["swift", "package", "describe", "--type", "json"], cwd=ROOT, check=True,
                               capture_output=True, text=True).stdout
    return {target["name"]: target for target in json.loads(described)["targets"]}


def reached(graph, start):
    """Every target start depends on, directly or not, and every product those name."""
    seen, products, todo = set(), set(), [start]
    while todo:
        name = todo.pop()
        target = graph[name]
        products.update(target.get("product_dependencies", []))
        for dependency in target.get("target_dependencies", []):
            if dependency not in seen:
                seen.add(dependency)
                todo.append(dependency)
    return seen, products


class FuzzBuildGraphTests(unittest.TestCase):
    def test_fuzz_targets_reach_neither_the_daemon_nor_its_listeners(self):
        seen, products = reached(targets(), "PassTapFuzzTargets")
        self.assertIn("PassTapConfig", seen, "the config fuzz target needs the config loader")
        self.assertEqual(seen & KEPT_OUT, set(),
                         "PassTapFuzzTargets reaches %s: the ASan build would compile them" % sorted(seen & KEPT_OUT))
        self.assertEqual(products & KEPT_OUT_PRODUCTS, set(),
                         "PassTapFuzzTargets reaches the products %s" % sorted(products & KEPT_OUT_PRODUCTS))

    def test_config_loader_stands_alone(self):
        seen, _ = reached(targets(), "PassTapConfig")
        self.assertEqual(seen & (KEPT_OUT | {"PassTapServer"}), set(),
                         "PassTapConfig depends on %s" % sorted(seen & (KEPT_OUT | {"PassTapServer"})))


if __name__ == "__main__":
    unittest.main()
