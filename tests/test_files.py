"""semantix._files: atomic writes (concurrent writers, failures, permissions, the Windows retry)
and reading a file a person saved (byte-order marks, not UTF-8)."""

from __future__ import annotations

import codecs
import errno
import os
import stat
import sys
import threading
from pathlib import Path

import pytest

from semantix import _files as files
from semantix._files import encodable, read_text, replace, write_atomic
from semantix.errors import ConfigurationError


def test_a_file_is_written_with_its_parents_and_returned(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "out.json"
    assert write_atomic(target, "héllo\nworld\n") == target
    assert target.read_bytes() == "héllo\nworld\n".encode()  # newlines as given
    write_atomic(target, b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    assert [p.name for p in target.parent.iterdir()] == ["out.json"]  # no temporary left


def test_what_utf8_cannot_encode_is_replaced(tmp_path: Path) -> None:
    write_atomic(tmp_path / "x.txt", "bad \ud800 byte, pair \ud83d\ude00")
    assert (tmp_path / "x.txt").read_text(encoding="utf-8") == "bad \ufffd byte, pair \U0001f600"
    same = "fine"
    assert encodable(same) is same


def test_concurrent_writers_leave_one_whole_writers_content(tmp_path: Path) -> None:
    # 8 threads rewrite one file with contents of different lengths while a reader reads it:
    # every read and the final file hold exactly one writer's whole content.
    target = tmp_path / "examples.json"
    contents = [(f'{{"writer": {n}, "pad": "' + "x" * (5000 * (n + 1)) + '"}\n') for n in range(8)]
    write_atomic(target, contents[0])
    seen: set[str] = set()
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            seen.add(target.read_text(encoding="utf-8"))

    def write(n: int) -> None:
        for _ in range(12):
            write_atomic(target, contents[n])

    reader = threading.Thread(target=read)
    reader.start()
    writers = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join()
    stop.set()
    reader.join()
    assert seen <= set(contents)
    assert target.read_text(encoding="utf-8") in contents
    assert [p.name for p in tmp_path.iterdir()] == ["examples.json"]


def test_a_failed_write_keeps_the_old_file_and_removes_the_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "report.json"
    target.write_text("old", encoding="utf-8")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", full)
    with pytest.raises(OSError, match="No space left"):
        write_atomic(target, "new")
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")
def test_permissions_are_those_open_gives_and_a_replaced_file_keeps_its_own(
    tmp_path: Path,
) -> None:
    mask = os.umask(0o027)
    try:
        write_atomic(tmp_path / "new.txt", "x")
        assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640
    finally:
        os.umask(mask)
    kept = tmp_path / "kept.txt"
    kept.write_text("x", encoding="utf-8")
    kept.chmod(0o600)
    write_atomic(kept, "y")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600


def test_replace_retries_on_windows_while_the_target_is_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real = os.replace

    def held(source: str, target: str) -> None:
        calls.append(source)
        if len(calls) < 3:
            raise PermissionError(13, "The process cannot access the file")
        real(source, target)

    (tmp_path / "a").write_text("a", encoding="utf-8")
    monkeypatch.setattr(files.os, "replace", held)
    monkeypatch.setattr(files.os, "name", "nt")
    monkeypatch.setattr(files, "_PAUSE_S", 0.0)
    replace(tmp_path / "a", tmp_path / "b")
    assert len(calls) == 3 and (tmp_path / "b").read_text(encoding="utf-8") == "a"
    monkeypatch.setattr(files.os, "name", "posix")  # elsewhere a PermissionError is final
    calls.clear()
    with pytest.raises(PermissionError):
        replace(tmp_path / "b", tmp_path / "c")
    assert len(calls) == 1


@pytest.mark.parametrize(
    "data",
    [
        b'{"a": 1}',
        codecs.BOM_UTF8 + b'{"a": 1}',
        codecs.BOM_UTF16_LE + '{"a": 1}'.encode("utf-16-le"),
        codecs.BOM_UTF16_BE + '{"a": 1}'.encode("utf-16-be"),
    ],
    ids=["utf-8", "utf-8 with a BOM", "utf-16-le with a BOM", "utf-16-be with a BOM"],
)
def test_a_file_a_person_saved_is_read_with_or_without_a_bom(tmp_path: Path, data: bytes) -> None:
    (tmp_path / "f.json").write_bytes(data)
    assert read_text(tmp_path / "f.json") == '{"a": 1}'


def test_a_file_that_is_not_utf8_names_the_file_and_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "cases.json"
    path.write_bytes('{"q": "café"}'.encode("latin-1"))
    with pytest.raises(ConfigurationError) as caught:
        read_text(path, what="cases file")
    assert str(caught.value) == (
        f"cases file {str(path)!r} is not UTF-8 text (byte 0xe9 at offset 10); save it as UTF-8"
    )

    class OwnError(Exception):
        pass

    with pytest.raises(OwnError, match="is not UTF-8 text"):
        read_text(path, error=OwnError)
    with pytest.raises(FileNotFoundError):
        read_text(tmp_path / "missing.json")
