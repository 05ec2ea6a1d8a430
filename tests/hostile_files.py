"""Character files as the bytes a player may upload: anything at all, or a file that was nearly right.

Binary noise, text that is not UTF-8 (cut sequences, encoded surrogates, overlong NULs), the characters a YAML
reader refuses (NUL, U+FFFE, controls), byte order marks of every encoding, escapes that write NUL or half a
surrogate pair, files past the size limit, YAML nested past every depth, alias bombs, several documents and foreign
tags, each alone or spliced into a real character file at any place.
"""

from __future__ import annotations

from hypothesis import strategies as st

from bot.files import MAX_FILE_BYTES

ALIAS_BOMB = (
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    + "".join(
        f"{name}: &{name} [{', '.join([f'*{prev}'] * 9)}]\n" for prev, name in zip("abcdefgh", "bcdefghi", strict=True)
    )
    + "kind: master\nname: Bomb\n"
)

# Pieces that break a file wherever they land.
SPLICES = [
    b"\x00", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", "\ufffe".encode(), "\uffff".encode(), b"\xed\xa0\x80",
    b"\xc0\x80", b"\xff", b"\xe3\x81", b"\x01", b"\x1b[2J", b"\x7f", "\u0085".encode(), "\u2028".encode(),
    b'"\\0"', b'"\\ud800"', b'"\\udfff"', b'"\\x00"', b"&a ", b"*a", b"!!binary ", b"!!python/object:os.system ",
    b"\n---\n", b"\n...\n", b"[", b"{", b"\t", b"\r", b": ", b"- ", b"'", b'"', b"%YAML 1.1\n",
]  # fmt: skip

WHOLE_FILES = [
    b"", b"\x00" * 64, b"\xef\xbb\xbf\x00", b"\xef\xbb\xbfkind: master\n", "\ufffe".encode(), b"\xff\xfe\x00\x00",
    "kind: master\nname: x\n".encode("utf-16"), "kind: master\nname: x\n".encode("utf-32"),
    b'kind: master\nname: "a\\0b"\n', b'kind: master\nname: "\\ud800"\n', b'"\\0": 1\nkind: master\n',
    b"kind: master\nname: \xed\xa0\x80\n", b"kind: master\nname: " + b"x" * (MAX_FILE_BYTES + 1),
    b"kind: master\nname: " + b"[" * 5000 + b"]" * 5000, b"kind: master\nname: " + b"{a: " * 2000 + b"}" * 2000,
    b"".join(b"  " * depth + b"a%d:\n" % depth for depth in range(200)), ALIAS_BOMB.encode(),
    b"kind: master\n---\nkind: x\n",
    b"- " * 3000 + b"x", b"kind: !!python/name:os.system master\n", b"kind: master\nname: !!binary aGVsbG8=\n",
]  # fmt: skip


def spliced(document: bytes, place: int, piece: bytes) -> bytes:
    place %= len(document) + 1
    return document[:place] + piece + document[place:]


def hostile_bytes(document: bytes) -> st.SearchStrategy[bytes]:
    """A file for the loader: anything, a known hostile file, or `document` with hostile bytes spliced in."""
    pieces = st.one_of(st.sampled_from(SPLICES), st.binary(min_size=1, max_size=8))
    return st.one_of(
        st.binary(max_size=300),
        st.sampled_from(WHOLE_FILES),
        st.builds(spliced, st.just(document), st.integers(0, len(document)), pieces),
    )
