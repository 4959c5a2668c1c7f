"""The fuzz build compiles only what the fuzz targets need. scripts/fuzz builds with ASan every
module PassTapFuzzTargets reaches, in this package and in its dependencies, so PassTapFuzzTargets
must reach neither the daemon, its listeners and the reader backends, nor the test kit's network
clients (PassTapTestNetwork), nor the HTTP and WebSocket modules of SwiftNIO
(docs/development.md, "The test kit"). The module graph is read from `swift package dump-package`
of this package and of each dependency checked out under .build/checkouts, following products
into the packages that define them, as SwiftPM does when it plans the build."""

import functools
import json
import os
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECKOUTS = os.path.join(ROOT, ".build", "checkouts")
# What the ASan build must not compile: (package, module); "" is this package.
KEPT_OUT = {("", name) for name in
            ("PassTapDaemon", "PassTapHTTP", "PassTapMetrics", "PassTapWeb", "PCSCBackend", "NFCBackend", "passtapd",
             "PassTapTestNetwork")}
KEPT_OUT |= {("swift-nio", "NIOHTTP1"), ("swift-nio", "NIOWebSocket"),
             ("swift-prometheus", "Prometheus"), ("swift-metrics", "Metrics"), ("swift-metrics", "CoreMetrics")}
# Each feature's settings target: on Core, ConfigKit and the feature's own libraries only.
SETTINGS_TARGETS = ("MetricsSettings", "WebSettings", "ForwardSettings", "VASSettings", "SmartTapSettings", "NDEFSettings", "FeedbackSettings")


@functools.lru_cache(maxsize=None)
def manifest(package):
    """The dumped manifest of `package` ("" for this one), by its identity."""
    path = ROOT if package == "" else checkout(package)
    with tempfile.TemporaryDirectory() as scratch:  # never the build's own .build: it may be busy
        dumped = subprocess.run(["swift", "package", "dump-package", "--package-path", path, "--scratch-path", scratch],
                                check=True, capture_output=True, text=True).stdout
    return json.loads(dumped)


def checkout(package):
    """The folder SwiftPM checked `package` out to (its name may differ in case from the identity)."""
    if os.path.isdir(CHECKOUTS):
        for name in os.listdir(CHECKOUTS):
            if name.lower() == package.lower():
                return os.path.join(CHECKOUTS, name)
    raise AssertionError("%s is not checked out under .build/checkouts: run `swift package resolve`" % package)


def on_linux(condition):
    """Whether a dependency with `condition` (None, or a platform list) applies on Linux."""
    platforms = (condition or {}).get("platformNames")
    return platforms is None or "linux" in platforms


def product_modules(package, product):
    """The modules of `product` in `package`."""
    for candidate in manifest(package)["products"]:
        if candidate["name"] == product:
            return [(package, target) for target in candidate["targets"]]
    raise AssertionError("no product %s in %s" % (product, package or "PassTap"))


def dependencies(package, target):
    """The modules `target` of `package` depends on directly, on Linux."""
    described = manifest(package)
    own = {candidate["name"]: candidate for candidate in described["targets"]}
    found = []
    for dependency in own[target]["dependencies"]:
        kind, value = next(iter(dependency.items()))
        if kind == "target":
            if on_linux(value[-1]):
                found.append((package, value[0]))
        elif kind == "product":
            name, owner = value[0], value[1]
            if on_linux(value[-1]):
                found.extend(product_modules(owner.lower(), name))
        elif kind == "byName":
            name = value[0]
            if not on_linux(value[-1]):
                continue
            if name in own:
                found.append((package, name))
            else:  # a product named like its package's dependency's module
                found.extend(product_by_name(package, name))
    return found


def product_by_name(package, name):
    """The modules of the product `name` that some dependency of `package` defines."""
    for entry in manifest(package)["dependencies"]:
        identity = next(iter(entry.values()))[0]["identity"]
        if any(product["name"] == name for product in manifest(identity)["products"]):
            return product_modules(identity, name)
    raise AssertionError("no dependency of %s has a product %s" % (package or "PassTap", name))


def reached(start):
    """Every module `start` (a target of this package) reaches, with the chain that reaches it."""
    chains = {("", start): [("", start)]}
    todo = [("", start)]
    while todo:
        module = todo.pop()
        for dependency in dependencies(*module):
            if dependency not in chains:
                chains[dependency] = chains[module] + [dependency]
                todo.append(dependency)
    return chains


def named(chain):
    return " -> ".join(("%s/%s" % module if module[0] else module[1]) for module in chain)


class FuzzBuildGraphTests(unittest.TestCase):
    def test_fuzz_targets_reach_neither_the_daemon_nor_its_listeners_nor_http(self):
        chains = reached("PassTapFuzzTargets")
        self.assertIn(("", "PassTapConfig"), chains, "the config fuzz target needs the config loader")
        self.assertIn(("", "PassTapTestSupport"), chains, "the fuzz targets use the test kit")
        leaks = sorted(named(chains[module]) for module in chains.keys() & KEPT_OUT)
        self.assertEqual(leaks, [], "the ASan fuzz build would compile:\n  " + "\n  ".join(leaks))

    def test_feature_settings_stand_on_core_and_config_kit(self):
        # Each feature's settings half (docs/architecture.md, "Feature slices") builds without NIO,
        # the socket protocol, the servers and the daemon, so the config fuzz target stays light.
        for target in SETTINGS_TARGETS:
            chains = reached(target)
            heavy = {module for module in chains if module[0] == "swift-nio"}
            heavy |= chains.keys() & (KEPT_OUT | {("", "PassTapServer"), ("", "PassTapProtocol")})
            leaks = sorted(named(chains[module]) for module in heavy)
            self.assertEqual(leaks, [], "%s depends on:\n  " % target + "\n  ".join(leaks))

    def test_config_loader_stands_alone(self):
        chains = reached("PassTapConfig")
        leaks = sorted(named(chains[module]) for module in chains.keys() & (KEPT_OUT | {("", "PassTapServer")}))
        self.assertEqual(leaks, [], "PassTapConfig depends on:\n  " + "\n  ".join(leaks))


if __name__ == "__main__":
    unittest.main()
