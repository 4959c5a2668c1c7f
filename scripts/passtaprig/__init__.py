"""PassTap's Python rig library: the helpers the rig's tests, the benches, the profiler and the
script tests share, so each is written once (docs/development.md, "Where a script gets its
helpers").

Standard library only, so that every interpreter that runs a script can import it: the benches'
`python3`, and `/usr/bin/python3` where pyscard is needed (scripts/rig/hold_reader.py).

A script finds the package from its own folder, before importing it:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # scripts/bench/
    import passtaprig

Modules:
- `passtaprig.waits`: `wait_for`, a polled condition with a deadline, and `Failure`;
- `passtaprig.figures`: `percentile` (nearest rank);
- `passtaprig.procstat`: a process's CPU time by thread and its peak RSS, from /proc;
- `passtaprig.perfdoc`: `write_section`, one bench's marked section of docs/performance.md;
- `passtaprig.vcard`: the private pcscd (`PcscdRig`), the virtual card's launch
  (`start_virtual_card`) and its control socket (`CardControl`);
- `passtaprig.daemon`: `Daemon`, a passtapd with a socket client subscribed to events;
- `passtaprig.uinput`: the /dev/uinput stand-in's build (`build_shim`), its log and the key stream;
- `passtaprig.xsession`: `Xvfb` with a chosen keyboard layout, and `ChromiumPage`, a focused text field on it.
- `passtaprig.keyboardrig`: `passtap keyboard`'s stack (`VasStack`: pcscd-rig, the virtual iPhone with a
  pass per message, passtapd with a merchant per pass), `write_keyboard_toml` and `KeyboardClient`.
"""

import os

# The repository's top folder.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The rig's folder: the virtual card, the phones, the emulated PN532, pcscd-rig.
RIG_DIR = os.path.join(ROOT, "scripts/rig")


def load_script(name, path):
    """The script at `path` (relative to the repository, e.g. "scripts/bench/fanout": the benches
    have no .py ending) loaded as the module `name`, for a bench that builds on another's parts."""
    import importlib.machinery
    import importlib.util

    loader = importlib.machinery.SourceFileLoader(name, os.path.join(ROOT, path))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    loader.exec_module(module)
    return module


def given_binary(parser, path, option="--passtapd"):
    """`path` (a bench's `--passtapd` argument) made absolute; the parser's usage error unless it
    is an executable file."""
    binary = os.path.abspath(path)
    if not os.access(binary, os.X_OK):
        parser.error("%s %s is not an executable file" % (option, path))
    return binary
