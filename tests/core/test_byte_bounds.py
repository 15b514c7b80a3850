"""Truncated byte-array bounds: correct, tightest, honest about exactness,
monotonic byte-wise, valid UTF-8 in UTF-8 mode."""

from __future__ import annotations

import bisect
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nanstats.core.byte_bounds import truncate_max, truncate_min

# Bytes from a small alphabet with both ends, so prefixes collide and 0xFF
# carries happen; plus arbitrary bytes and real text.
EDGY = st.lists(st.sampled_from([0x00, 0x01, 0x7F, 0x80, 0xC3, 0xFE, 0xFF]), max_size=8).map(bytes)
ANY_BYTES = EDGY | st.binary(max_size=12)
TEXT = st.text(max_size=10).map(str.encode)
LENGTHS = st.integers(0, 10)


@given(st.lists(ANY_BYTES | TEXT, min_size=1, max_size=20), LENGTHS, st.booleans())
def test_bounds_of_a_scope_hold_every_value(scope, n, utf8) -> None:
    lo, lo_exact = truncate_min(min(scope), n, utf8=utf8)
    hi, hi_exact = truncate_max(max(scope), n, utf8=utf8)
    assert all(lo <= v <= hi for v in scope)
    assert lo_exact == (lo == min(scope))
    assert hi_exact == (hi == max(scope))


@given(ANY_BYTES | TEXT, LENGTHS, st.booleans())
def test_lengths_and_exact_flags(value, n, utf8) -> None:
    lo, lo_exact = truncate_min(value, n, utf8=utf8)
    hi, hi_exact = truncate_max(value, n, utf8=utf8)
    assert len(lo) <= n or lo_exact
    assert lo_exact == (lo == value) == (len(value) <= n)
    assert value.startswith(lo)
    assert hi_exact == (hi == value)
    if not hi_exact:
        assert len(hi) <= n and hi > value
    elif len(value) > n and not utf8:  # kept whole: no shorter upper bound exists
        assert value[:n] == b"\xff" * n
    assert isinstance(lo, bytes) and isinstance(hi, bytes)


@given(ANY_BYTES | TEXT, ANY_BYTES | TEXT, LENGTHS)
def test_byte_truncation_is_monotonic(a, b, n) -> None:
    # Sorted bounds stay sorted: what keeps an ASCENDING page index ascending.
    a, b = min(a, b), max(a, b)
    assert truncate_min(a, n)[0] <= truncate_min(b, n)[0]
    assert truncate_max(a, n)[0] <= truncate_max(b, n)[0]


# Every byte string of at most 2 bytes, sorted: the brute-force search space.
SHORT = sorted(bytes(t) for k in range(3) for t in itertools.product(range(256), repeat=k))


@given(ANY_BYTES, st.integers(0, 2))
def test_bounds_are_the_tightest_of_at_most_n_bytes(value, n) -> None:
    space = [s for s in SHORT if len(s) <= n] if n < 2 else SHORT
    # The largest string of <= n bytes that is <= value, and the smallest >= value.
    best_lo = space[bisect.bisect_right(space, value) - 1]
    i = bisect.bisect_left(space, value)
    assert truncate_min(value, n)[0] == best_lo
    if i == len(space):  # nothing of <= n bytes is >= value: kept whole
        assert truncate_max(value, n) == (value, True)
    else:
        assert truncate_max(value, n)[0] == space[i]


@given(TEXT, LENGTHS)
def test_utf8_mode_keeps_valid_utf8(value, n) -> None:
    lo, _ = truncate_min(value, n, utf8=True)
    hi, _ = truncate_max(value, n, utf8=True)
    assert value.decode().startswith(lo.decode())
    hi.decode()  # raises if invalid
    assert lo <= value <= hi


def test_utf8_cases() -> None:
    zoe = "Zoë".encode()  # 5A 6F C3 AB
    assert truncate_min(zoe, 3, utf8=True) == (b"Zo", False)
    assert truncate_min(zoe, 3) == (b"Zo\xc3", False)
    assert truncate_max(zoe, 3, utf8=True) == (b"Zp", False)
    assert truncate_max(zoe, 3) == (b"Zo\xc4", False)
    # U+D7FF + 1 is a surrogate, which UTF-8 cannot hold: U+E000 instead.
    assert truncate_max("a\ud7ffb".encode(), 4, utf8=True) == ("a\ue000".encode(), False)
    # The incremented character must fit: U+07FF + 1 needs 3 bytes.
    assert truncate_max("\u07ff\u07ffx".encode(), 4, utf8=True) == ("\u0800".encode(), False)
    # Nothing to increment: kept whole.
    top = "\U0010ffff\U0010ffffz".encode()
    assert truncate_max(top, 5, utf8=True) == (top, True)
    assert truncate_min("😀x".encode(), 3, utf8=True) == (b"", False)
    # Invalid UTF-8 is truncated byte-wise even in UTF-8 mode.
    assert truncate_max(b"\xffa\x80bc", 3, utf8=True) == (b"\xffa\x81", False)
    assert truncate_min(b"\xffa\x80bc", 3, utf8=True) == (b"\xffa\x80", False)


def test_utf8_mode_is_not_monotonic() -> None:
    # Why boundary_order must come from the stored bounds: a < b, yet after
    # UTF-8-aware truncation b's min sorts first.
    a, b = "aé!".encode(), "a😀".encode()
    assert a < b
    assert truncate_min(a, 3, utf8=True)[0] == "aé".encode()
    assert truncate_min(b, 3, utf8=True)[0] == b"a"


def test_carry_past_0xff() -> None:
    assert truncate_max(b"ab\xff\xffcd", 4) == (b"ac", False)
    assert truncate_max(b"\xff\xff\xff\xff", 2) == (b"\xff\xff\xff\xff", True)
    assert truncate_max(b"abc", 0) == (b"abc", True)
    assert truncate_min(b"abc", 0) == (b"", False)
    assert truncate_max(b"Slartibartfast", 2) == (b"Sm", False)


@pytest.mark.parametrize(
    ("value", "n", "error", "match"),
    [
        ("text", 2, TypeError, "encode str values first"),
        (12, 2, TypeError, "value must be bytes, not int"),
        (b"abc", -1, ValueError, "non-negative int"),
        (b"abc", 1.5, ValueError, "non-negative int"),
        (b"abc", True, ValueError, "non-negative int"),
    ],
)
def test_misuse_is_refused(value, n, error, match) -> None:
    for fn in (truncate_min, truncate_max):
        with pytest.raises(error, match=match):
            fn(value, n)


def test_bytes_like_inputs() -> None:
    assert truncate_max(bytearray(b"abc"), 2) == (b"ac", False)
    assert truncate_min(memoryview(b"abc"), 2) == (b"ab", False)
