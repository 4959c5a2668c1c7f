import PassTapDaemon
import Testing

/// A table header that does not begin with a key is refused with its line, before toml++ (in
/// TOMLKit 0.6.0) can abort passtapd on it (`parser::parse_key()`'s assertion; the config fuzz
/// target's finding). Headers are told from brackets inside values as TOML does, so valid files
/// that hold `[` at the start of a line inside a string or an array still load.
@Suite(.timeLimit(.minutes(1))) struct TableHeaderCheckTests {
    static let file = "/etc/passtap/passtapd.toml"

    static func refusal(_ text: String) -> ConfigurationError? {
        do {
            _ = try ConfigLoader.parse(text, file: file)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        ("[~as.merchants]\n", 1, "'~'"),
        ("[vas]\nenabled = true\n\n[[~as.merchants]]\n", 4, "'~'"),
        ("[socket]\nmode = \"0660\"\n[\u{6}\u{6}oot\"]\n", 3, "U+0006"),
        ("[\nfreshness_s = 30\n", 1, "U+000A"),
        ("[\r\n", 1, "U+000D"),
        ("  [ \t@x]\n", 1, "'@'"),
        ("[[ é]]\n", 1, "U+00E9"),
        ("\u{FEFF}[~x]\n", 1, "'~'"),  // toml++ skips a byte-order mark, then aborted here
        ("[a]\r\nx = 1\r\n[~x]\r\n", 3, "'~'"),
        ("# a comment\n[log]\nlevel = \"info\"  # [~ not a header\n[.x]\n", 4, "'.'"),
    ])
    func aHeaderWithoutAKeyIsRefusedWithItsLine(text: String, line: Int, found: String) throws {
        let error = try #require(Self.refusal(text))
        #expect(error.line == line && error.keyPath == "")
        #expect(
            error.description
                == "\(Self.file):\(line): not valid TOML: a table header must begin with a key (letters, digits, '_' and '-', or a quoted key), found \(found)"
        )
    }

    @Test(arguments: [
        // `[` starting a line inside an array of values.
        "[session]\naids = [\n[\"A0000000041010\"],\n]\n",
        // … inside multi-line strings, basic and literal, with quotes at their ends.
        "[log]\nlevel = \"\"\"\n[~info\"\"\"\"\n",
        "[log]\nlevel = '''\n[~info\n'''\n",
        // … after an escaped quote and an escaped line break in a multi-line basic string.
        "[log]\nlevel = \"\"\"a\\\"\"\" \\\n[~b\"\"\"\n",
    ])
    func bracketsInsideValuesAreNotHeaders(text: String) throws {
        let error = try #require(Self.refusal(text))  // each value is of the wrong kind for its key
        #expect(!error.description.contains("table header"), "\(error)")
    }

    @Test(arguments: [
        "[socket]\n[\"access\"]\n[ 'events' ]\n[[vas.merchants]]\n",
        "[pcsc]\n[libnfc]\n[[ reader ]]\n",
    ])
    func quotedAndSpacedHeadersAreLeftToTOML(text: String) {
        #expect(!(Self.refusal(text)?.description.contains("table header") ?? false))
    }
}
