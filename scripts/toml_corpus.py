#!/usr/bin/env python3
"""Writes random TOML documents that Python's tomllib (TOML 1.0) accepts into DIR, for
TOMLSyntaxCheckTests' corpus test: none may be refused as not TOML by passtapd's config loader.

    python3 scripts/toml_corpus.py DIR [SEED]      (COUNT=N documents tried, default 20000)
    PASSTAP_TOML_CORPUS=DIR swift test --skip-build --filter aCorpusThatPythonsTomllib

Keys (bare, quoted, literal, dotted with spaces), every string form (escapes, multi-line with
line-ending backslashes and one or two quotes before the closing three), integers in four bases,
floats, inf and nan, booleans, nested arrays across lines with comments, inline tables, table and
array-table headers, LF and CRLF lines, and a byte-order mark now and then. No dates: passtapd
refuses them on purpose.
"""
import os
import random
import sys
import tomllib
random.seed(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
bare = "abcXYZ019_-"
def key():
    r = random.random()
    if r < 0.6: return "".join(random.choice(bare) for _ in range(random.randint(1, 6)))
    if r < 0.8: return '"' + random.choice(["a b", "é", "\\u00e9", "x\\ty", "[~", "#", "'"]) + '"'
    return "'" + random.choice(["a b", "é", "\\x", '"', "[~", "#"]) + "'"
def dkey():
    return (random.choice([" . ", ".", " .", ". "])).join(key() for _ in range(random.randint(1, 3)))
def string():
    r = random.random()
    if r < 0.3: return '"' + random.choice(["", "abc", "\\\"q\\\"", "\\\\", "\\u00e9\\U0001F600", "\\b\\f\\n\\r\\t", "tab\there", "[~x", "#x", "'"]) + '"'
    if r < 0.5: return "'" + random.choice(["", "abc", "C:\\x", '"', "[~x", "#x", "\t"]) + "'"
    if r < 0.75:
        body = random.choice(["", "\n", "a\nb", "\n[~x\n", 'a"b', 'a""b', "a\\\n   b", "a \\   \n\n  b", "\\\"\"\"", "x\r\ny", "#c\n", 'end"', 'end""'])
        return '"""' + body + '"""'
    body = random.choice(["", "\n", "a\nb", "\n[~x\n", "a'b", "a''b", "C:\\x\\", "#c\n", "end'", "end''", "x\r\ny"])
    return "'''" + body + "'''"
def number():
    return random.choice(["0", "+1", "-1", "1_000", "0xdead_BEEF", "0o755", "0b1010", "3.14", "-0.0", "6.626e-34", "1E6", "1e+06", "3.14_15", "inf", "+inf", "-nan", "nan", "9223372036854775807", "-9223372036854775808", "5e22", "1_2.3_4e5_6"])
def value(d=0):
    r = random.random()
    if r < 0.35: return string()
    if r < 0.6: return number()
    if r < 0.7: return random.choice(["true", "false"])
    if r < 0.85 and d < 4:
        sep = random.choice([",", ", ", " ,", ",\n", ", # c\n", "\n,"])
        items = [value(d + 1) for _ in range(random.randint(0, 4))]
        inner = sep.join(items)
        if items and random.random() < 0.3: inner += ","
        return "[" + random.choice(["", " ", "\n", " # c\n"]) + inner + random.choice(["", " ", "\n"]) + "]"
    if d < 4:
        kvs = [f"{dkey()} = {value(d+1)}" for _ in range(random.randint(0, 3))]
        kvs = [kv for kv in kvs if "\n" not in kv]
        return "{" + random.choice(["", " "]) + ", ".join(kvs) + random.choice(["", " "]) + "}"
    return number()
def doc():
    lines = []
    for _ in range(random.randint(1, 8)):
        r = random.random()
        ws = random.choice(["", " ", "\t"])
        if r < 0.15: lines.append(ws + "# comment " + random.choice(["", "[~", "é", '"""']))
        elif r < 0.3: lines.append(ws + "[" + random.choice(["", " "]) + dkey() + random.choice(["", " "]) + "]" + random.choice(["", " # c"]))
        elif r < 0.4: lines.append(ws + "[[" + random.choice(["", " "]) + dkey() + random.choice(["", " "]) + "]]")
        elif r < 0.45: lines.append("")
        else: lines.append(ws + dkey() + random.choice(["=", " = ", " =", "= "]) + value() + random.choice(["", " ", " # c"]))
    nl = random.choice(["\n", "\r\n"])
    text = nl.join(lines) + random.choice(["", nl])
    if random.random() < 0.05: text = "\ufeff" + text
    return text
n = 0
for i in range(int(os.environ.get("COUNT", "20000"))):
    t = doc()
    try:
        tomllib.loads(t.lstrip("\ufeff"))
    except Exception:
        continue
    with open(os.path.join(out, f"doc{i:06d}.toml"), "w", encoding="utf-8", newline="") as f:
        f.write(t)
    n += 1
print("valid docs:", n)
