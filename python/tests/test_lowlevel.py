"""The ctypes declarations match the headers (names, argument counts and kinds,
struct fields), and the library is found as documented."""

import ctypes
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import REPO

from slog2 import _lib

HEADERS = {"slog2.h": _lib.SLOG2_FUNCTIONS, "trace_API.h": _lib.TRACE_FUNCTIONS}


def _strip_comments(s: str) -> str:
    return re.sub(r"/\*.*?\*/", "", re.sub(r"//[^\n]*", "", s), flags=re.S)


def header_functions(name):
    text = _strip_comments((REPO / "include" / name).read_text())
    out = {}
    for m in re.finditer(r"^(?:TRACE_EXPORT\s+)?([A-Za-z_][\w\s\*]*?)\b((?:SLOG2|TRACE)_\w+)\s*\(([^;{]*?)\)\s*;",
                         text, flags=re.M | re.S):
        ret, fname, args = m.group(1).strip(), m.group(2), " ".join(m.group(3).split())
        params = [] if args in ("", "void") else [a.strip() for a in args.split(",")]
        out[fname] = (ret, params)
    return out


def header_structs():
    text = ""
    for n in HEADERS:
        text += _strip_comments((REPO / "include" / n).read_text())
    out = {}
    for m in re.finditer(r"typedef struct (\w+) \{(.*?)\} (\w+);", text, flags=re.S):
        fields = []
        for decl in m.group(2).split(";"):
            decl = " ".join(decl.split())
            if not decl:
                continue
            typ, names = re.match(r"^(.*?[\s\*])(\w+(?:\s*,\s*\*?\s*\w+)*)$", decl).groups()
            for nm in names.split(","):
                star = "*" in typ or nm.strip().startswith("*")
                fields.append((nm.strip().lstrip("*").strip(), typ.strip(), star))
        out[m.group(3)] = fields
    return out


def c_kind(decl: str) -> str:
    """Coarse kind of a C parameter/return declaration."""
    d = decl.replace("const", " ")
    if "*" in d or "[" in d:
        return "ptr"
    d = " ".join(d.split())
    words = d.split()
    t = " ".join(words[:-1]) if len(words) > 1 and words[-1] not in ("int", "double", "char", "float") else d
    if t in ("int", "enum TRACE_Rec_Kind_t"):
        return "int"
    if t in ("int64_t", "TRACE_int64_t", "long long"):
        return "int64"
    if t == "double":
        return "double"
    if t == "char":
        return "char"
    if t == "float":
        return "float"
    if t == "void":
        return "void"
    if t in ("SLOG2_File", "SLOG2_Scan", "SLOG2_Cursor", "SLOG2_Stats", "SLOG2_Overview", "TRACE_file"):
        return "ptr"
    raise AssertionError(f"unknown C type {decl!r}")


def py_kind(t) -> str:
    if t is None:
        return "void"
    if t in (ctypes.c_int,):
        return "int"
    if t in (ctypes.c_int64, ctypes.c_longlong):
        return "int64"
    if t is ctypes.c_double:
        return "double"
    if t is ctypes.c_char:
        return "char"
    if t is ctypes.c_float:
        return "float"
    if t in (ctypes.c_void_p, ctypes.c_char_p) or issubclass(t, ctypes._Pointer):
        return "ptr"
    raise AssertionError(f"unknown ctypes type {t}")


@pytest.mark.parametrize("header", sorted(HEADERS))
def test_every_function_declared_with_matching_signature(header):
    funcs = header_functions(header)
    table = HEADERS[header]
    assert len(funcs) >= 15
    assert set(funcs) == set(table), (
        f"only in {header}: {sorted(set(funcs) - set(table))}; "
        f"only in Python: {sorted(set(table) - set(funcs))}")
    for name, (ret, params) in funcs.items():
        res, args = table[name]
        assert len(args) == len(params), f"{name}: {len(params)} arguments in {header}, {len(args)} in Python"
        got = [py_kind(a) for a in args]
        want = []
        for p in params:
            # a parameter is "type name"; an unnamed one is just the type
            want.append(c_kind(p))
        assert got == want, f"{name}: argument kinds {got} != header {want}"
        r = "ptr" if "*" in ret else c_kind(ret + " x")
        assert py_kind(res) == r, f"{name}: return {res} != header {ret!r}"
        # and the symbol is really exported with these declarations applied
        fn = getattr(_lib.lib, name)
        assert fn.argtypes is not None and len(fn.argtypes) == len(params)


def test_struct_fields_match_headers():
    structs = header_structs()
    for name, cls in _lib.STRUCTS.items():
        assert name in structs, f"{name} not in the headers"
        hdr = [f[0] for f in structs[name]]
        py = [f[0] for f in cls._fields_]
        assert hdr == py, f"{name}: header fields {hdr} != Python {py}"
    cols = [f[0] for f in structs["SLOG2_Query_columns"]]
    assert cols == [n for n, _ in _lib.SLOG2_QUERY_COLUMNS]
    # sizes agree with the C types (pointer columns: void*; others by kind)
    for (n, t), (_hn, ht, star) in zip(_lib.SLOG2_QUERY_COLUMNS, structs["SLOG2_Query_columns"]):
        assert star
        assert py_kind(t) == c_kind(ht.replace("*", "") + " x"), f"column {n}: {t} vs {ht}"
    # the other structs: every field's kind (and the columns are all pointers)
    for name, cls in _lib.STRUCTS.items():
        for (fn, ft), (_hn, ht, star) in zip(cls._fields_, structs[name]):
            want = "ptr" if star else c_kind(ht + " x")
            assert py_kind(ft) == want, f"{name}.{fn}: {ft} vs {ht}"


def test_constants_match_headers():
    text = (REPO / "include" / "slog2.h").read_text() + (REPO / "include" / "trace_API.h").read_text()
    defs = dict(re.findall(r"#define ((?:SLOG2|TRACE)_[A-Z_]+) (-?\d+)", text))
    assert len(defs) >= 15
    for k, v in defs.items():
        assert getattr(_lib, k) == int(v), k
    enums = dict(re.findall(r"\b(TRACE_[A-Z_]+) = (\d+)", text))
    for k, v in enums.items():
        assert getattr(_lib, k) == int(v), k


def _import(env_lib, cwd=None, extra_path=None):
    env = dict(os.environ)
    env.pop("SLOG2_LIB", None)
    if env_lib is not None:
        env["SLOG2_LIB"] = env_lib
    env["PYTHONPATH"] = extra_path or str(REPO / "python")
    return subprocess.run([sys.executable, "-c", "import slog2; print(slog2.lib_path)"],
                          capture_output=True, text=True, env=env, cwd=cwd or "/")


def test_missing_library_lists_the_paths_tried(tmp_path):
    r = _import(str(tmp_path / "nowhere" / "libslog2.so"), extra_path=str(REPO / "python"))
    # the source tree may not bundle the library; if it does this test still needs a miss
    assert r.returncode != 0
    assert "ImportError" in r.stderr
    assert "Tried, in order" in r.stderr
    assert str(tmp_path / "nowhere" / "libslog2.so") in r.stderr
    assert "bundled" in r.stderr and "find_library" in r.stderr


def test_library_from_env_file_or_directory():
    lib = os.environ["SLOG2_LIB"]
    r = _import(lib)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == lib
    r = _import(os.path.dirname(lib))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == os.path.join(os.path.dirname(lib), "libslog2.so")


def test_bundled_copy_is_found_without_env(tmp_path):
    pkg = tmp_path / "site" / "slog2"
    shutil.copytree(REPO / "python" / "slog2", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(os.environ["SLOG2_LIB"], pkg / "libslog2.so")
    r = _import(None, extra_path=str(tmp_path / "site"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(pkg / "libslog2.so")
