import Foundation
import ISO7816
import PassTapCore
import VAS

/// Renders one event as the readable line `passtap watch` prints; a `read.result` adds indented
/// lines for the wallet that answered and for a tag's NDEF records (``ReadResultLines``).
///
/// Every string that a card, a phone or a reader may have chosen (reader names, reasons, labels,
/// error messages) goes through ``UntrustedText``, so none can drive the operator's terminal.
enum EventLine {
    static func render(_ event: Event) -> String {
        let time = RFC3339.string(from: event.time).dropFirst(11).dropLast()  // HH:MM:SS.mmm
        var line = "\(time) #\(event.seq) \(event.kind.rawValue)"
        if let reader = event.reader { line += " [\(UntrustedText.escaped(reader.rawValue))]" }
        switch event.payload {
        case .backend(let name, let reason):
            line += " backend=\(UntrustedText.escaped(name))"
            if let reason { line += " reason=\(UntrustedText.quoted(reason))" }
        case .reader(let info):
            line += " state=\(info.state.rawValue)"
            if let reason = info.reason { line += " reason=\(UntrustedText.quoted(reason))" }
        case .card(let card):
            line += " atr=\(card.atr) uid=\(card.uid?.hex ?? "-")"
            if let atqa = card.atqa { line += " atqa=\(atqa)" }
            if let sak = card.sak { line += " sak=\(sak)" }
            if let ats = card.ats { line += " ats=\(ats)" }
        case .cardRemoved:
            break
        case .readResult(let result):
            line += " uid=\(result.card.uid?.hex ?? "-")"
            guard let aid = result.aid else {
                line += " target=\(result.target.rawValue) (no APDU session)"
                line += ReadResultLines.render(result).map { "\n    " + $0 }.joined()
                break
            }
            line += " aid=\(aid.selected?.hex ?? "none")"
            let attempts = aid.attempts.map { "\($0.aid):\($0.sw?.hex ?? "----")" }
            if !attempts.isEmpty { line += " tried=" + attempts.joined(separator: ",") }
            if let directory = aid.ppse, directory.offered {
                line += " ppse=" + directory.applications.map { "\($0.aid)(\(UntrustedText.escaped($0.label ?? "-")))" }.joined(separator: ",")
            }
            if let error = result.error { line += " error=\(error.code.rawValue) (\(UntrustedText.escaped(error.message)))" }
            line += ReadResultLines.render(result).map { "\n    " + $0 }.joined()
        case .configReloaded(let reload):
            line += " file=\(UntrustedText.quoted(reload.file))"
            line += " changed=" + (reload.changed.isEmpty ? "none" : reload.changed.joined(separator: ","))
            if !reload.restartRequired.isEmpty { line += " restart_required=" + reload.restartRequired.joined(separator: ",") }
        case .configRejected(let rejection):
            let place = rejection.line.map { "\(rejection.file):\($0)" } ?? rejection.file
            line += " at=\(UntrustedText.quoted(place))"
            if !rejection.key.isEmpty { line += " key=\(UntrustedText.escaped(rejection.key))" }
            line += " problem=\(UntrustedText.quoted(rejection.problem))"
        case .forwardDropped(let dropped):
            line += " reason=\(dropped.reason.rawValue)"
            if let sink = dropped.sink { line += " sink=\(UntrustedText.escaped(sink))" }
            line += " count=\(dropped.count) ids=\(UntrustedText.escaped(dropped.firstID))..\(UntrustedText.escaped(dropped.lastID))"
        }
        return line
    }
}
