/// `passtap --help`'s text (and so `passtap(1)`, which `generate-manual` makes from it): what
/// the tool covers, and the one table of exit codes every command follows, which
/// `docs/client.md` repeats row for row (`CLITests` compares the two).
enum PassTapHelp {
    /// One exit code and when `passtap` gives it.
    struct ExitCodeRow {
        let code: Int32
        let meaning: String
    }

    /// Every exit code of every `passtap` command (sysexits(3) from 64 on). A daemon that is not
    /// running is 69, except for `status`, a monitoring check, which says 2 (down).
    static let exitCodes: [ExitCodeRow] = [
        ExitCodeRow(code: 0, meaning: "success (status: healthy)"),
        ExitCodeRow(code: 1, meaning: "status: degraded, running but not everything is well"),
        ExitCodeRow(code: 2, meaning: "status: down, no answer or no reader backend up"),
        ExitCodeRow(code: 64, meaning: "usage: bad arguments, no such reader or sink"),
        ExitCodeRow(code: 65, meaning: "no pass read; not a P-256 key; does not decrypt; a layout cannot type it"),
        ExitCodeRow(code: 66, meaning: "a key file missing or unreadable"),
        ExitCodeRow(code: 67, meaning: "--owner names no such user or group"),
        ExitCodeRow(code: 69, meaning: "passtapd not running (status: 2), or it answered an error; no uinput or X"),
        ExitCodeRow(code: 73, meaning: "the new key, token or secret file exists or cannot be made"),
        ExitCodeRow(code: 75, meaning: "timeout: no answer in --timeout, no card in --wait"),
        ExitCodeRow(code: 76, meaning: "an answer from passtapd that passtap does not understand"),
        ExitCodeRow(code: 77, meaning: "permission: socket refused or not passtapd's; key file mode"),
        ExitCodeRow(code: 78, meaning: "keyboard.toml refused: its file, line, key and what was expected"),
    ]

    /// The table as `--help` prints it: one row a line, the code right-aligned in 3 columns.
    static var exitCodeLines: String {
        exitCodes.map { row in
            let code = String(row.code)
            return String(repeating: " ", count: 3 - code.count) + code + "  " + row.meaning
        }.joined(separator: "\n")
    }

    static let abstract =
        "Talk to passtapd (readers, taps, Apple VAS and Google Smart Tap passes, NDEF tags, forwarding, APDUs) and make keys, web tokens and webhook secrets offline."

    static var discussion: String {
        """
        Connects to passtapd's Unix socket (--socket, else $PASSTAP_SOCKET unless empty, else \
        /run/passtap/passtapd.sock). status, readers and watch show the readers and every tap: \
        Apple VAS passes, Google Smart Tap passes and NDEF tags; pass-read (vas-read before 0.3.0) waits for one pass \
        from either wallet; forward shows the forwarding to webhooks and PostgreSQL, and \
        retries or drops what is held back; apdu and shell send raw APDUs ([socket] \
        allow_transmit).

        Offline, without the daemon: keygen makes an Apple VAS merchant key, or with --smarttap \
        a Google Smart Tap collector key; key-info and vas-decrypt check keys and captured \
        cryptograms; web-token makes a browser client's [[web.tokens]] secret; forward secret a \
        webhook's signing secret. --out is a folder for keygen, web-token and forward secret.

        Exit codes, the same for every command:
        \(exitCodeLines)
        """
    }
}
