#!/usr/bin/env python3
"""Checks that the library's layers only look down (docs/architecture.md).

The order is read from docs/architecture.md: the first line of the section
"## Layers" that names layers as `a` -> `b` -> ... (arrows "→" or "->").
A layer named `x` is the folder src/x/, `x/<...>` is src/x/ too, and
`tools/tlc` is tools/tlc/. Every C file under those folders belongs to its
layer; a public header include/tilelang/<h>.h belongs to the highest layer that
the lowest layer that defines a function it declares with TL_API (a header of
types only belongs to the lowest layer; see Tree.__init__).

Two rules, for every .c and .h file of a layer:
  - includes: an #include "..." that resolves to a file of a higher layer (or to
    a public header of a higher layer) is a violation;
  - references: naming a function (call or address) that is defined, not
    static, only in files of higher layers is a violation (found by scanning
    definitions at file scope; comments and strings are skipped).

Exit status 0 when the tree is clean, 1 with one line per violation otherwise.
--self-test runs the checker on small trees made in a temporary directory (and
on a copy of this tree with a violating file added) and fails unless every
violation is found and every clean tree passes.

Only the Python standard library is used.
"""

import argparse
import os
import re
import shutil
import sys
import tempfile

ARROW = re.compile(r"\s*(?:→|->)\s*")
LAYER_NAME = re.compile(r"`([A-Za-z0-9_./<>]+)`")


def read_layer_order(doc_path):
    """The layer names, lowest first, from the '## Layers' section of the doc."""
    with open(doc_path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^## Layers\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not m:
        raise SystemExit(f"check-layers: {doc_path} has no '## Layers' section")
    section = m.group(1)
    # The order may wrap over several lines: join the paragraph holding arrows.
    for para in re.split(r"\n\s*\n", section):
        if "→" not in para and "->" not in para:
            continue
        flat = " ".join(line.strip() for line in para.splitlines())
        chain = re.search(r"`[^`]+`(?:\s*(?:→|->)\s*`[^`]+`(?:\s*\([^)]*\))?)+", flat)
        if not chain:
            continue
        names = LAYER_NAME.findall(chain.group(0))
        if len(names) >= 2:
            return names
    raise SystemExit(f"check-layers: no `a` → `b` → ... order in the Layers section of {doc_path}")


def layer_folder(name):
    """The folder (relative to the root) of a layer name from the doc."""
    if name.startswith("tools/"):
        return name.rstrip("/")
    base = name.split("/")[0]
    return "src/" + base


C_NOISE = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)
PREPROCESSOR_LINE = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.M)


def blank(m):
    return re.sub(r"[^\n]", " ", m.group(0))


def strip_c(text):
    """Text with comments, string and character literals blanked (lines kept)."""
    return C_NOISE.sub(blank, text)


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
IDENT = re.compile(r"\b(tl__?[A-Za-z0-9_]+)\b")
TL_API_DECL = re.compile(r"\bTL_API\b[^;{]*?\b(tl_[A-Za-z0-9_]+)\s*\(", re.S)


def file_scope_definitions(code):
    """Names of non-static functions defined at file scope in stripped C code."""
    code = PREPROCESSOR_LINE.sub(blank, code)
    names = []
    depth = 0
    stmt_start = 0  # where the current file-scope declaration began
    for m in re.finditer(r"[{};]", code):
        c, i = m.group(0), m.start()
        if c == "{":
            if depth == 0:
                head = code[stmt_start:i]
                d = re.search(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(([^()]|\([^()]*\))*\)\s*$", head, re.S)
                if d and not re.search(r"\bstatic\b", head) and "=" not in head:
                    names.append(d.group(1))
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
            if depth == 0:
                stmt_start = i + 1
        elif depth == 0:
            stmt_start = i + 1
    return names


class Tree:
    def __init__(self, root):
        self.root = os.path.abspath(root)
        self.order = read_layer_order(os.path.join(self.root, "docs", "architecture.md"))
        self.folders = [layer_folder(n) for n in self.order]
        self.rank = {}  # folder -> rank (several names may share one folder)
        for r, folder in enumerate(self.folders):
            self.rank.setdefault(folder, r)
        self.files = {}  # relative path -> (rank, stripped text)
        for folder in self.rank:
            top = os.path.join(self.root, folder)
            for dirpath, _, filenames in os.walk(top):
                for fn in sorted(filenames):
                    if fn.endswith((".c", ".h")):
                        rel = os.path.relpath(os.path.join(dirpath, fn), self.root)
                        with open(os.path.join(dirpath, fn), encoding="utf-8", errors="replace") as f:
                            self.files[rel] = (self.rank_of(rel), strip_c(f.read()))
        self.defined = {}  # function name -> set of ranks defining it
        for rel, (rank, code) in self.files.items():
            if rel.endswith(".c"):
                for name in file_scope_definitions(code):
                    self.defined.setdefault(name, set()).add(rank)
        # A public header (include/tilelang/) groups declarations by topic for the
        # API's users, not by layer, so it may declare functions of several layers
        # (runtime.h: the kernel table's and the runtime's). It belongs to the
        # LOWEST layer defining a function it declares: a layer may include it
        # when something in it is at or below that layer, and what the layer then
        # names from it is checked by the reference rule. A header of types only
        # (plugin.h) belongs to the lowest layer; one that only includes others
        # (the umbrella tilelang.h) to the highest of those.
        self.public = {}  # "tilelang/x.h" -> rank
        pub_dir = os.path.join(self.root, "include", "tilelang")
        pub_includes = {}
        if os.path.isdir(pub_dir):
            for fn in sorted(os.listdir(pub_dir)):
                if fn.endswith(".h"):
                    with open(os.path.join(pub_dir, fn), encoding="utf-8") as f:
                        raw = f.read()
                    code = strip_c(raw)
                    key = "tilelang/" + fn
                    ranks = [min(self.defined[d]) for d in TL_API_DECL.findall(code) if d in self.defined]
                    self.public[key] = min(ranks) if ranks else None
                    pub_includes[key] = INCLUDE.findall(strip_c_keep_includes(raw))
        for _ in range(len(self.public) + 1):
            for key in self.public:
                if self.public[key] is None:
                    known = [self.public[i] for i in pub_includes[key] if self.public.get(i) is not None]
                    if known and len(known) == len([i for i in pub_includes[key] if i in self.public]):
                        self.public[key] = max(known)
        for key in self.public:
            if self.public[key] is None:
                self.public[key] = 0

    def rank_of(self, rel):
        best = None
        for folder, r in self.rank.items():
            if rel == folder or rel.startswith(folder + "/"):
                if best is None or len(folder) > len(best[0]):
                    best = (folder, r)
        return None if best is None else best[1]

    def name(self, rank):
        return self.order[rank]

    def include_rank(self, rel, inc):
        """The rank of what `#include "inc"` in file `rel` names, or None."""
        if inc in self.public:
            return self.public[inc]
        here = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
        for cand in (here, os.path.normpath(os.path.join("src", inc)), os.path.normpath(inc)):
            if os.path.exists(os.path.join(self.root, cand)):
                return self.rank_of(cand)
        return None

    def check(self):
        problems = []
        # Every folder of src/ is some layer: a new folder must be placed in the
        # documented order before its files can be checked.
        src = os.path.join(self.root, "src")
        if os.path.isdir(src):
            for d in sorted(os.listdir(src)):
                if os.path.isdir(os.path.join(src, d)) and "src/" + d not in self.rank:
                    problems.append(f"src/{d}/: a folder in no layer of docs/architecture.md's order")
        for rel in sorted(self.files):
            rank, code = self.files[rel]
            with open(os.path.join(self.root, rel), encoding="utf-8", errors="replace") as f:
                raw = strip_c_keep_includes(f.read())
            for m in INCLUDE.finditer(raw):
                r = self.include_rank(rel, m.group(1))
                if r is not None and r > rank:
                    line = raw.count("\n", 0, m.start()) + 1
                    problems.append(f"{rel}:{line}: includes \"{m.group(1)}\" ({self.name(r)}), "
                                    f"above {self.name(rank)}")
            own = set(file_scope_definitions(code)) if rel.endswith(".c") else set()
            seen = set()
            for m in IDENT.finditer(code):
                sym = m.group(1)
                if sym in own or sym in seen or sym not in self.defined:
                    continue
                ranks = self.defined[sym]
                if min(ranks) > rank:
                    seen.add(sym)
                    line = code.count("\n", 0, m.start()) + 1
                    problems.append(f"{rel}:{line}: refers to {sym} (defined in {self.name(min(ranks))}), "
                                    f"above {self.name(rank)}")
        return problems


def strip_c_keep_includes(text):
    """Comments blanked, but string literals kept (so #include "..." survives)."""
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def run(root, quiet=False):
    problems = Tree(root).check()
    if not quiet:
        for p in problems:
            print(p)
    return problems


# ------------------------------------------------------------------ self-test

def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def small_tree(root):
    write(root, "docs/architecture.md",
          "# A\n\n## Layers\n\nLower first:\n`low` → `mid` →\n`high/<x>` → `tools/top`.\n\n## Other\n")
    write(root, "include/tilelang/low.h", "TL_API int tl_low(void);\n")
    write(root, "include/tilelang/high.h", "#include \"tilelang/low.h\"\nTL_API int tl_high(void);\n")
    write(root, "src/low/low.h", "int tl__low_helper(void);\n")
    write(root, "src/low/low.c", "#include \"low/low.h\"\nint tl__low_helper(void) { return 1; }\n"
                                 "int tl_low(void) { return tl__low_helper(); }\n")
    write(root, "src/mid/mid.c", "#include \"low/low.h\"\n#include \"tilelang/low.h\"\n"
                                 "/* tl_high() in a comment is fine */\nstatic const char *s = \"tl_high()\";\n"
                                 "int tl__mid(void) { return tl_low() + tl__low_helper(); }\n")
    write(root, "src/high/x/high.c", "#include \"tilelang/high.h\"\nint tl__mid(void);\n"
                                     "int tl_high(void) { return tl__mid(); }\n")
    write(root, "src/high/x/high.h", "int tl_high(void);\n")
    write(root, "tools/top/main.c", "#include \"tilelang/high.h\"\nint main(void) { return tl_high(); }\n")


def self_test():
    failures = []

    def expect(label, root, want_clean, needle=None):
        problems = run(root, quiet=True)
        ok = (not problems) if want_clean else any(needle in p for p in problems)
        if not ok:
            failures.append(f"{label}: expected {'no violation' if want_clean else 'a violation: ' + needle}, "
                            f"got {problems or 'none'}")
        else:
            print(f"self-test ok: {label}")

    cases = [
        ("clean small tree", None, None, True, None),
        ("include of a higher layer's header", "src/low/bad.c", '#include "high/x/high.h"\n', False,
         "src/low/bad.c:1: includes"),
        ("relative include climbing up", "src/mid/bad.h", '#include "../high/x/high.h"\n', False,
         "src/mid/bad.h:1: includes"),
        ("public header of a higher layer", "src/mid/bad2.c", '#include "tilelang/high.h"\n', False,
         "includes \"tilelang/high.h\" (high/<x>)"),
        ("a folder in no layer", "src/other/x.c", "int tl__x(void) { return 0; }\n", False,
         "src/other/: a folder in no layer"),
        ("call of a higher layer's function", "src/low/call.c",
         "int tl_high(void);\nint tl__x(void) { return tl_high(); }\n", False, "refers to tl_high"),
        ("address of a higher layer's function", "src/mid/ptr.c",
         "int tl_high(void);\nstatic int (*const hook)(void) = tl_high;\n", False, "refers to tl_high"),
    ]
    with tempfile.TemporaryDirectory(prefix="tl-check-layers-") as tmp:
        for i, (label, rel, text, clean, needle) in enumerate(cases):
            root = os.path.join(tmp, f"case{i}")
            small_tree(root)
            if rel:
                write(root, rel, text)
            expect(label, root, clean, needle)
        # The real tree, copied, with one violating file added.
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        copy = os.path.join(tmp, "tree")
        for part in ("src", "tools", "include", "docs"):
            if os.path.isdir(os.path.join(here, part)):
                shutil.copytree(os.path.join(here, part), os.path.join(copy, part))
        write(copy, "src/base/zz_layer_violation.c",
              '#include "engine/cache.h"\nvoid tl__zz(void) { (void)tl_compile; }\n')
        problems = run(copy, quiet=True)
        for needle in ("src/base/zz_layer_violation.c:1: includes \"engine/cache.h\"",
                       "src/base/zz_layer_violation.c:2: refers to tl_compile"):
            if not any(needle in p for p in problems):
                failures.append(f"real tree with a violating file: expected '{needle}', got {problems or 'none'}")
            else:
                print(f"self-test ok: real tree copy, {needle}")
    for f in failures:
        print("self-test FAILED: " + f)
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    help="the source tree (default: this script's repository)")
    ap.add_argument("--self-test", action="store_true", help="check that the checker finds violations")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    tree = Tree(args.root)
    problems = tree.check()
    for p in problems:
        print(p)
    if problems:
        print(f"check-layers: {len(problems)} violation(s) of the layer order in docs/architecture.md")
        return 1
    print(f"check-layers: ok ({len(tree.files)} files, layers: " + " -> ".join(tree.order) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
