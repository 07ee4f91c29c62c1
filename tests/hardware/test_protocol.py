"""Properties of the sans-IO codec: round trips, chunking, resync, and no exceptions."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hardware.protocol import (
    CLOCK_MODES,
    MAX_LINE,
    MAX_SEQ,
    Ack,
    Brightness,
    Cell,
    ClockAdjust,
    ClockPause,
    ClockRun,
    ClockSet,
    Decoder,
    Flag,
    Hello,
    LedFrame,
    Nak,
    Pattern,
    Ping,
    Press,
    Received,
    Refused,
    checksum,
    encode,
)

SAFE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/+:"
word = st.text(alphabet=SAFE, min_size=1, max_size=12)
ms = st.integers(min_value=0, max_value=2**31 - 1)
side = st.sampled_from(["w", "b"])
cell = st.builds(Cell, st.sampled_from(list(Pattern)), st.integers(0, 0xFFFFFF))


@st.composite
def led_frames(draw):
    files = draw(st.integers(1, 16))
    ranks = draw(st.integers(1, 16))
    palette = draw(st.lists(cell, min_size=1, max_size=36, unique=True))
    cells = draw(st.lists(st.sampled_from(palette), min_size=files * ranks, max_size=files * ranks))
    return LedFrame(files, ranks, tuple(cells))


acked = st.one_of(
    st.builds(Hello, st.integers(1, 999), st.lists(st.tuples(word, word), max_size=6).map(tuple)),
    st.builds(Ping, st.none() | ms),
    led_frames(),
    st.builds(Brightness, st.integers(0, 255)),
    st.builds(ClockSet, st.sampled_from(CLOCK_MODES), ms, ms, ms, ms),
    st.builds(ClockRun, side),
    st.just(ClockPause()),
    st.builds(ClockAdjust, ms, ms),
    st.builds(Press, side, ms, ms, ms),
    st.builds(Flag, side, ms),
)
replies = st.one_of(
    st.builds(Ack, st.integers(1, MAX_SEQ)),
    st.builds(Nak, st.integers(1, MAX_SEQ), st.lists(word, min_size=1, max_size=8).map(" ".join)),
)
frames = st.one_of(
    st.tuples(st.integers(1, MAX_SEQ), acked),
    st.tuples(st.just(0), replies),
)


def stream(items):
    return b"".join(encode(message, seq) for seq, message in items)


def expected(items):
    return [Received(seq, message) for seq, message in items]


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames)
def test_decode_of_encode_is_identity(item):
    seq, message = item
    line = encode(message, seq)
    assert line.endswith(b"\n") and len(line) <= MAX_LINE
    decoder = Decoder()
    assert decoder.feed(line) == [Received(seq, message)]
    assert decoder.errors == 0


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(frames, max_size=8), st.data())
def test_any_chunking_gives_the_same_events(items, data):
    raw = stream(items)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(raw)), max_size=20)))
    decoder = Decoder()
    out = []
    for start, end in zip([0, *cuts], [*cuts, len(raw)], strict=True):
        out += decoder.feed(raw[start:end])
    assert out == expected(items)
    assert decoder.errors == 0


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300), st.lists(frames, min_size=1, max_size=5))
def test_garbage_prefix_resyncs_at_the_next_newline(garbage, items):
    decoder = Decoder()
    out = decoder.feed(garbage + b"\n" + stream(items))
    assert out[-len(items):] == expected(items)
    assert len(out) - len(items) <= garbage.count(b"\n") + 1


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300).filter(lambda g: b"\n" not in g), st.lists(frames, min_size=2, max_size=5))
def test_garbage_without_newline_costs_at_most_the_first_frame(garbage, items):
    out = Decoder().feed(garbage + stream(items))
    assert out[-(len(items) - 1):] == expected(items)[1:]
    assert len(out) in (len(items) - 1, len(items))


def _countable_lines(data: bytes) -> int:
    """Lines that must produce exactly one frame or one counted error."""
    *complete, tail = data.split(b"\n")
    count = sum(1 for line in complete if line not in (b"", b"\r"))
    return count + (1 if len(tail) >= MAX_LINE else 0)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=3000), st.data())
def test_random_bytes_never_raise_and_every_bad_line_is_counted(raw, data):
    cuts = sorted(data.draw(st.lists(st.integers(0, len(raw)), max_size=10)))
    decoder = Decoder()
    out = []
    for start, end in zip([0, *cuts], [*cuts, len(raw)], strict=True):
        out += decoder.feed(raw[start:end])
    received = [item for item in out if isinstance(item, Received)]
    assert all(isinstance(item, Received | Refused) for item in out)
    assert len(received) + decoder.errors == _countable_lines(raw)
    assert out == Decoder().feed(raw)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(list(b"0123456789 ACKNLEDPRSHOGFIUTJW*xbw\r\n=/,") + [0x2A]), max_size=400))
def test_near_miss_bytes_never_raise(chars):
    raw = bytes(chars)
    decoder = Decoder()
    out = decoder.feed(raw)
    received = [item for item in out if isinstance(item, Received)]
    assert len(received) + decoder.errors == _countable_lines(raw)


def test_a_corrupted_byte_is_caught_by_the_checksum():
    line = bytearray(encode(ClockAdjust(600000, 540000), 12))
    line[8] ^= 0x01
    decoder = Decoder()
    assert decoder.feed(bytes(line)) == []
    assert decoder.errors == 1 and "checksum" in decoder.last_error


def _frame(body: str) -> bytes:
    raw = body.encode()
    return raw + f" *{checksum(raw):02X}\n".encode()


def test_unknown_commands_are_refused_with_a_reason_not_dropped():
    out = Decoder().feed(_frame("41 DANCE fast") + _frame("42 CLK TICK"))
    assert out == [Refused(41, "unknown command DANCE"), Refused(42, "unknown command CLK TICK")]


def test_bad_arguments_are_refused_naming_the_argument():
    (item,) = Decoder().feed(_frame("9 CLK SET RAPID 1 2 3 4"))
    assert isinstance(item, Refused) and item.seq == 9 and "'RAPID'" in item.reason
    (item,) = Decoder().feed(_frame("9 LED 9x10 S00FF00 000"))
    assert isinstance(item, Refused) and "3 points for a 9x10 grid" in item.reason


def test_crlf_line_endings_are_accepted():
    line = encode(Ping(5), 3)
    assert Decoder().feed(line[:-1] + b"\r\n") == [Received(3, Ping(5))]


def test_an_overlong_line_is_dropped_without_being_kept():
    decoder = Decoder()
    assert decoder.feed(b"7" * (MAX_LINE * 3)) == []
    assert len(decoder._buffer) < MAX_LINE and decoder.errors == 1
    assert decoder.feed(b"\n" + encode(Ping(), 4)) == [Received(4, Ping())]
    assert decoder.errors == 1


def test_encode_rejects_what_the_wire_cannot_carry():
    with pytest.raises(ValueError, match="at most 36 distinct"):
        encode(LedFrame(16, 16, tuple(Cell(Pattern.SOLID, n) for n in range(256))), 1)
    with pytest.raises(ValueError, match="outside 0..9999"):
        encode(Ping(), 10000)
    with pytest.raises(ValueError, match="13 cells for a 9x10"):
        LedFrame(9, 10, (Cell(),) * 13)


def test_the_examples_in_protocol_md_are_valid_frames():
    from pathlib import Path

    text = (Path(__file__).parents[2] / "hardware" / "PROTOCOL.md").read_text()
    examples = [line.strip()[2:] for line in text.splitlines() if line.strip().startswith("> ")]
    examples += [line.strip()[2:] for line in text.splitlines() if line.strip().startswith("< ")]
    examples = [example for example in examples if example != "\\n"]
    assert len(examples) >= 20
    for example in examples:
        decoder = Decoder()
        out = decoder.feed(example.encode() + b"\n")
        assert len(out) == 1 and isinstance(out[0], Received), (example, decoder.last_error)


def test_a_seq_with_leading_zeros_or_a_checksum_int_would_stretch_is_dropped():
    """'decimal without leading zeros', 'two hex digits' (PROTOCOL §3): int() alone would take
    '05', ' 7' and '+7'."""
    decoder = Decoder()
    good = encode(Ping(), 7)
    body = good[:good.rindex(b" *")]
    padded = b"07" + body[1:]  # '07 PING' with its own right checksum
    forged = [padded + b" *%02X\n" % checksum(padded), body + b" * 7\n", body + b" *+7\n"]
    for line in forged:
        assert decoder.feed(line) == [], line
    assert decoder.errors == len(forged)
    assert decoder.feed(good) == [Received(7, Ping())]
