import Foundation
import PassTapDaemon
import Testing

/// Config text that leaves TOML's grammar is refused with its line before toml++ (in TOMLKit
/// 0.6.0) sees it: toml++ aborted passtapd on some of it (its `assert`s in `parse_key()`,
/// `parse_value()` and `parse_time()`; the config fuzz target's findings). Valid TOML, in every
/// form the grammar has, still loads.
@Suite(.timeLimit(.minutes(1))) struct TOMLSyntaxCheckTests {
    static let file = "/etc/passtap/passtapd.toml"

    static func refusal(_ text: String) -> ConfigurationError? {
        do {
            _ = try ConfigLoader.parse(text, file: file)
            return nil
        } catch {
            return error
        }
    }

    static let header = "a table header must begin with a key (letters, digits, '_' and '-', or a quoted key), found "

    @Test(arguments: [
        // Each aborted passtapd before (fuzz findings).
        ("[~as.merchants]\n", 1, header + "'~'"),
        ("[vas]\nenabled = true\n\n[[~as.merchants]]\n", 4, header + "'~'"),
        ("[socket]\nmode = \"0660\"\n[\u{6}\u{6}oot\"]\n", 3, header + "U+0006"),
        ("[\nfreshness_s = 30\n", 1, header + "U+000A"),
        ("\u{FEFF}[~x]\n", 1, header + "'~'"),
        ("[vas]\n[[vas.merchants]]\nkeys = [}\"chant.xex\"]\n", 3, "expected a value, found '}'"),
        ("[vas]\nenabled =1979-05-27T&7:32:00Z\t\n", 2, "dates and times are not used in passtapd.toml"),
        // Other ways out of the grammar, each named with its line.
        ("[a]\r\nx = 1\r\n[~x]\r\n", 3, header + "'~'"),
        ("[log]\nlevel = \"info\n", 2, "the string is not closed with '\"' before the end of its line"),
        ("[log]\nlevel = 'info\n", 2, "the string is not closed with \"'\" before the end of its line"),
        ("[log]\nlevel = \"\"\"info\n\n", 4, "the multi-line string is not closed with '\"\"\"'"),
        ("[log]\nlevel = \"a\\qb\"\n", 2, "\\'q' is not an escape in a string (use \\\\ for a backslash)"),
        ("[log]\nlevel = \"\\uD800\"\n", 2, "the escape \\u{D800} is not a Unicode scalar value"),
        ("[log]\nlevel = \"a\u{7}b\"\n", 2, "a control character (U+0007) in a string: write it as an escape such as \\u0007"),
        ("[log]\nlevel =\n", 2, "a value is missing (a value must be on the same line as its key)"),
        ("[log]\nlevel = info\n", 2, "expected a value (a string in quotes, a number, true or false, an array or an inline table), found info"),
        ("[socket]\nmax_clients = 0064\n", 2, "expected a value (a string in quotes, a number, true or false, an array or an inline table), found 0064"),
        ("[socket]\nmax_clients = 6__4\n", 2, "expected a value (a string in quotes, a number, true or false, an array or an inline table), found 6__4"),
        ("[socket]\nmax_clients = 64 65\n", 2, "expected the end of the line after this line's key, value or table, found '6'"),
        ("[session]\naids = [\"A0\" \"B0\"]\n", 2, "expected ',' or ']' after a value in the array, found '\"'"),
        ("[session]\naids = [\n\"A0\",\n", 4, "the array is not closed with ']'"),
        ("x = {a = 1,}\n", 1, "an inline table cannot end with a comma"),
        ("x = {a = 1\n}\n", 1, "expected ',' or '}' in the inline table (which stays on one line), found U+000A"),
        ("[socket\npath = 1\n", 1, "expected ']' to close the table header, found U+000A"),
        ("[[reader]\n", 1, "expected ']]' to close the table header, found U+000A"),
        ("a = 1\rb = 2\n", 1, "a carriage return must be followed by a line feed"),
        ("# a comment with a bell \u{7}\n", 1, "a control character (U+0007) in a comment"),
        ("\"\"\"a\"\"\" = 1\n", 1, "a key cannot be a multi-line string"),
        ("ünïcode = 1\n", 1, "expected a key (letters, digits, '_' and '-', or a quoted key), found U+00FC"),  // TOML 1.0 bare keys are ASCII
        ("x = " + String(repeating: "[", count: 65) + String(repeating: "]", count: 65) + "\n", 1,
         "arrays and inline tables nested deeper than 64"),
    ])
    func textOutsideTheGrammarIsRefusedWithItsLine(text: String, line: Int, message: String) throws {
        let error = try #require(Self.refusal(text))
        #expect(error.line == line && error.keyPath == "", "\(error)")
        #expect(error.description == "\(Self.file):\(line): not valid TOML: \(message)")
    }

    /// By hand: `PASSTAP_TOML_CORPUS=DIR` names a folder of `.toml` files that Python's `tomllib`
    /// (TOML 1.0) accepts (`python3 scripts/toml_corpus.py DIR` writes one); none may be refused as not TOML.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["PASSTAP_TOML_CORPUS"] != nil))
    func aCorpusThatPythonsTomllibAcceptsIsNotRefusedAsTOML() throws {
        let folder = try #require(ProcessInfo.processInfo.environment["PASSTAP_TOML_CORPUS"])
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".toml") }.sorted()
        var refused: [String] = []
        for name in names {
            let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            if let error = Self.refusal(text), error.problem.hasPrefix("not valid TOML") { refused.append("\(name): \(error)") }
        }
        #expect(!names.isEmpty)
        #expect(refused.isEmpty, "\(refused.count) of \(names.count) refused: \(refused.prefix(10))")
    }

    /// Valid TOML: each may be refused by the config loader for what it says (an unknown key, a
    /// value of the wrong kind), never as not TOML.
    @Test(arguments: [
        "",
        "\n\n# only a comment\r\n\t \n",
        "[socket]\n[\"access\"]\n[ 'events' ]\n[[vas.merchants]]\n[[ reader ]]\n[a . \"b\" . 'c']\n",
        "a.b . c = 1\n\"quoted key\" = 'x'\n'literal key' = \"y\"\n1234 = 1\n-_- = 2\n",
        "ints = [0, +1, -1, 1_000, 0xDEAD_beef, 0o755, 0b1010, 9223372036854775807]\n",
        "floats = [0.0, -1.5, 6.626e-34, 1E6, 1e+06, 3.14_15, inf, +inf, -nan, nan, 224_617.445_991_228]\n",
        "bools = [true, false]\nnested = [[1, 2], [\"a\", 'b'], [], [{}], [{a = 1}, {b = 'x', c.d = []}]]\n",
        "aids = [\n  \"A0000000041010\", # Mastercard\n  \"A0000000031010\",\n\n  # end\n]\n",
        "s = \"tab\\tquote\\\"backslash\\\\ \\u00e9 \\U0001F600 \\b\\f\\n\\r\"\n",
        "s = \"\"\"\nRoses \"are\" red\n[~not a header\n\"\"\"\nt = \"\"\"a\"\"\"\"\nu = \"\"\"a\"\"\"\"\"\n",
        "s = \"\"\"The quick \\\n\n\n   brown \\   \r\n   fox\"\"\"\n",
        "s = '''\n[~x\n'''\nt = ''''That,' she said'''\nu = '''a'''''\nw = 'C:\\Users\\x'\n",
        "point = { x = 1, y = 2 }\nempty = {}\nnested = { a = { b = [1] } }\n",
        "[pcsc]\nenabled = true # trailing comment\nreaders = [] # none\n",
        "[a]\r\nb = 1\r\nc = \"\"\"x\r\ny\"\"\"\r\n",
        "\u{FEFF}[log]\nlevel = \"info\"\n",
        "key = \"value\"\t\t\n\t[table]\t\n",
    ])
    func validTOMLIsNotRefusedAsTOML(text: String) {
        let error = Self.refusal(text)
        #expect(!(error?.problem.hasPrefix("not valid TOML") ?? false), "\(String(describing: error))")
    }
}
