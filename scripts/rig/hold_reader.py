#!/usr/bin/python3
"""Holds a PC/SC reader's card exclusively, as a vendor tool or a second program can.

    hold_reader.py READER_NAME

Connects with SCARD_SHARE_EXCLUSIVE (waiting up to 10 s for the card), prints "held" on one line,
then keeps the connection until SIGTERM or SIGINT, and lets go (SCARD_LEAVE_CARD). While it
holds the card, every other PC/SC client's SCardConnect fails with SCARD_E_SHARING_VIOLATION.
Debian's python3-pyscard works only under /usr/bin/python3.
"""

import signal
import sys
import time

from smartcard.scard import (SCARD_E_NO_SMARTCARD, SCARD_LEAVE_CARD, SCARD_PROTOCOL_T0, SCARD_PROTOCOL_T1,
                             SCARD_S_SUCCESS, SCARD_W_REMOVED_CARD,
                             SCARD_SCOPE_USER, SCARD_SHARE_EXCLUSIVE, SCardConnect, SCardDisconnect,
                             SCardEstablishContext, SCardGetErrorMessage, SCardReleaseContext)


def main():
    reader = sys.argv[1]
    result, context = SCardEstablishContext(SCARD_SCOPE_USER)
    if result != SCARD_S_SUCCESS:
        sys.exit("hold_reader: no context: %s" % SCardGetErrorMessage(result))
    # pcscd notices a card a few hundred milliseconds after it arrives: retry for up to 10 s.
    deadline = time.monotonic() + 10
    while True:
        result, card, _ = SCardConnect(context, reader, SCARD_SHARE_EXCLUSIVE, SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1)
        if result not in (SCARD_E_NO_SMARTCARD, SCARD_W_REMOVED_CARD) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    if result != SCARD_S_SUCCESS:
        sys.exit("hold_reader: cannot hold %s: %s" % (reader, SCardGetErrorMessage(result)))
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM, signal.SIGINT])
    print("held", flush=True)
    signal.sigwait([signal.SIGTERM, signal.SIGINT])
    SCardDisconnect(card, SCARD_LEAVE_CARD)
    SCardReleaseContext(context)
    print("released", flush=True)


if __name__ == "__main__":
    main()
