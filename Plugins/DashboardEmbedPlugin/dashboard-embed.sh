#!/bin/sh
# Writes the Swift source that embeds the dashboard's files in PassTapDashboard: one multi-line raw
# string literal per file, served by `Dashboard.asset(at:)` at `/` (index.html) and `/NAME` (the
# others). Run at build time by DashboardEmbedPlugin (docs/development.md, "The dashboard's files").
#
#     dashboard-embed.sh OUTPUT FILE...     FILEs in the order to write them (the plugin sorts them)
#
# Each literal is delimited by one `#` more than the longest run of `#` in its file, so neither its
# end (`"""#`) nor an escape (`\#`) can occur inside it, and its value is the file byte for byte.
# Refused, since such a literal would not keep them as they are: a file that is not UTF-8, and
# control characters other than tab and newline (Swift reads a carriage return in a multi-line
# literal as a line end, `\n`). POSIX sh, awk, tr and iconv only: no tool to build first (the fuzz
# build, Fuzz/, builds the tools of every plugin in the package graph, with its sanitizers).
set -eu
LC_ALL=C
export LC_ALL

fail() {
    echo "error: dashboard-embed: $*" >&2
    exit 1
}

[ $# -ge 2 ] || fail "usage: dashboard-embed.sh OUTPUT FILE..."
output=$1
shift
trap 'rm -f "$output.partial"' EXIT

{
    printf '%s\n' "// Generated at build time from Sources/PassTapDashboard/Files/ by" \
        "// Plugins/DashboardEmbedPlugin/dashboard-embed.sh: edit those files, not this one." \
        "" \
        "extension Dashboard {" \
        "    /// Every file of Files/, by the path it is served at." \
        "    static let files: [String: DashboardAsset] = ["
    for file in "$@"; do
        name=${file##*/}
        case $name in
            *.html) type="text/html; charset=utf-8" ;;
            *.css) type="text/css; charset=utf-8" ;;
            *.js) type="text/javascript; charset=utf-8" ;;
            *.svg) type="image/svg+xml" ;;
            *) fail "$name: no content type for it (known: .html, .css, .js, .svg)" ;;
        esac
        case $name in
            *[!A-Za-z0-9._-]*) fail "$name: a name of letters, digits, '.', '_', '-' only" ;;
        esac
        if [ "$name" = index.html ]; then route=/; else route=/$name; fi
        iconv -f UTF-8 -t UTF-8 "$file" >/dev/null 2>&1 || fail "$name is not UTF-8 text"
        # Every byte but tab, newline, printable ASCII and UTF-8's bytes above 0x7F.
        if [ "$(tr -d '\t\n\040-\176\200-\377' <"$file" | wc -c)" -ne 0 ]; then
            fail "$name holds a control character other than tab and newline (a carriage return?)"
        fi
        longest=$(awk '{
            line = $0
            while (match(line, /#+/)) {
                if (RLENGTH > longest) longest = RLENGTH
                line = substr(line, RSTART + RLENGTH)
            }
        } END { print longest + 0 }' "$file")
        delimiter=$(awk -v n="$longest" 'BEGIN { while (n-- >= 0) printf "#" }')
        printf '        "%s": DashboardAsset(\n' "$route"
        printf '            contentType: "%s",\n' "$type"
        printf '            body: Array(\n%s"""\n' "$delimiter"
        cat "$file"
        printf '\n"""%s.utf8)),\n' "$delimiter"
    done
    printf '    ]\n}\n'
} >"$output.partial"
mv "$output.partial" "$output"
