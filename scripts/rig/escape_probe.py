#!/usr/bin/python3
"""Asks the rig's escape reader (pcscd-rig with PASSTAP_RIG_ESCAPE) what a driver asks a reader:
its features, then the ACR1252U's escapes, on a direct connection; prints one JSON object.
Runs under /usr/bin/python3 (Debian's pyscard)."""

import json
import sys

from smartcard.scard import (SCARD_LEAVE_CARD, SCARD_SCOPE_USER, SCARD_SHARE_DIRECT, SCARD_CTL_CODE, SCardConnect,
                             SCardControl, SCardDisconnect, SCardEstablishContext, SCardListReaders, SCardReleaseContext)


def main():
    code = SCARD_CTL_CODE(int(sys.argv[1])) if len(sys.argv) > 1 else SCARD_CTL_CODE(1)
    _, context = SCardEstablishContext(SCARD_SCOPE_USER)
    _, readers = SCardListReaders(context, [])
    reader = next(name for name in readers if name.startswith("ACS ACR1252"))
    result, card, _ = SCardConnect(context, reader, SCARD_SHARE_DIRECT, 0)
    out = {"reader": reader, "connect": result & 0xFFFFFFFF}
    result, features = SCardControl(card, SCARD_CTL_CODE(3400), [])
    out["features"] = [result & 0xFFFFFFFF, bytes(features).hex().upper()]
    for name, command in (("led", [0xE0, 0, 0, 0x29, 1, 0x02]), ("defaults", [0xE0, 0, 0, 0x21, 0])):
        result, answer = SCardControl(card, code, command)
        out[name] = [result & 0xFFFFFFFF, bytes(answer).hex().upper()]
    SCardDisconnect(card, SCARD_LEAVE_CARD)
    SCardReleaseContext(context)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
