import Foundation
import Testing

/// `Plugins/DashboardEmbedPlugin/dashboard-embed.sh`, which writes the dashboard's files as Swift
/// at build time, on files the dashboard does not have yet: a raw string literal that holds any
/// text byte for byte, and a refusal for what no literal keeps as it is.
@Suite(.timeLimit(.minutes(1))) struct DashboardEmbedScriptTests {
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Plugins/DashboardEmbedPlugin/dashboard-embed.sh")

    /// The script's exit status, its Swift output and its standard error, run on `files` (name and
    /// bytes), written to a new temporary folder first.
    static func embed(
        _ files: [(name: String, bytes: [UInt8])]
    ) throws -> (status: Int32, swift: String, error: String) {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("dashboard-embed-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for file in files {
            try Data(file.bytes).write(to: folder.appendingPathComponent(file.name))
        }
        let output = folder.appendingPathComponent("Dashboard+Files.swift")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let paths = files.map { folder.appendingPathComponent($0.name).path }
        process.arguments = [script.path, output.path] + paths
        let standardError = Pipe()
        process.standardError = standardError
        try process.run()
        let errorBytes = standardError.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let swift = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        return (process.terminationStatus, swift, String(decoding: errorBytes, as: UTF8.self))
    }

    /// Text with `"""#`, `\#(` and a run of three `#` gets four: the literal's end and escapes
    /// cannot occur in it, so its value is the text, which is kept without its last newline too.
    @Test func theDelimiterOutrunsEveryRunOfHashesInTheFile() throws {
        let text = ####"const a = "\#(b)"; // """# and ### and \##n"####
        let result = try Self.embed([("index.html", Array(text.utf8))])
        #expect(result.status == 0, "\(result.error)")
        let entry = "        \"/\": DashboardAsset(\n            contentType: \"text/html; charset=utf-8\","
        #expect(result.swift.contains(entry))
        #expect(result.swift.contains("Array(\n####\"\"\"\n\(text)\n\"\"\"####.utf8)),\n"))
    }

    /// Swift reads a carriage return in a multi-line literal as `\n`, and a type must be known.
    @Test(arguments: [
        ("index.html", Array("<p>\r\n".utf8), "control character"),
        ("index.html", [0x3C, 0x70, 0x3E, 0x00], "control character"),
        ("index.html", [0x3C, 0xFF, 0x3E], "not UTF-8"),
        ("logo.png", Array("png".utf8), "no content type"),
    ])
    func whatNoLiteralKeepsIsRefused(name: String, bytes: [UInt8], reason: String) throws {
        let result = try Self.embed([(name, bytes)])
        #expect(result.status == 1)
        #expect(result.error.contains(reason), "\(result.error)")
    }
}
