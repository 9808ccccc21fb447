"""Files every stage writes and reads: atomic writes, inter-process locks, bounded reads.

- ``atomic_write_text``: readers see the old file or the new one, never half; known secrets are
  cut out last of all (``_secrets.redact_known``), so no file we write carries a key. A report
  (``follow_links``) written through a symbolic link replaces the file the link points to and keeps
  the link; ``write_target`` says where a write lands, or why it must not happen.
- ``interprocess_lock``: one writer at a time for a file several processes update (pytest-xdist
  workers, parallel ``citecheck`` runs). The lock files live in this user's own directory in the
  temporary directory, not beside the file they guard; a lock directory that is not ours is an
  error naming it.
- ``read_regular_file``: the bytes of a regular file, at most a given number of them. Anything else
  (a directory, a device such as ``/dev/zero``, a FIFO, a socket) is refused before it is read, so a
  hostile or mistaken path can neither exhaust memory nor hang the run.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
import threading
from collections.abc import Iterable, Iterator
from hashlib import sha256
from pathlib import Path

from pytest_citecheck._secrets import cut_secrets, known_secrets

LOCKS_DIRECTORY_NAME = "pytest-citecheck-locks"


class UnreadableFileError(ValueError):
    """A path that is not a regular file, or a file larger than its reader accepts."""


class DirectoryError(UnreadableFileError):
    """A path that is a directory (a reader may say what to do about one in its own words)."""


class MissingDirectoryError(FileNotFoundError):
    """A symbolic link to a file in a directory that does not exist: its message names the directory to make."""


class LockUnavailableError(RuntimeError):
    """The directory of the inter-process locks cannot be used: not ours, not a directory, not writable."""

    def __init__(self, directory: Path, reason: str) -> None:
        super().__init__(f"the lock directory {directory} cannot be used ({reason})")
        self.directory = directory
        self.reason = reason
        self.remedy = f"remove {directory}, or set TMPDIR to a directory of your own"


def atomic_write_text(path: Path, text: str, *, follow_links: bool = False) -> None:
    """Replace ``path`` with ``text`` so that readers see the old file or the new one, never half.

    The new file gets the mode an ordinary write would give it: an existing file's own mode, or
    0666 less the umask for a new one (``mkstemp`` alone makes every file 0600). Every file we
    write comes through here, so known secrets are cut out here last of all: a claim that carries
    the app's key reaches no report or reviews file either. ``follow_links``: see ``write_target``.
    """
    atomic_write_chunks(path, (text,), follow_links=follow_links)


def atomic_write_chunks(path: Path, chunks: Iterable[str], *, follow_links: bool = False) -> None:
    """``atomic_write_text`` of the text ``chunks`` make, written as they come (a report of many rows
    is never built whole in memory). Each chunk is redacted on its own, so a chunk holds whole values
    (a report row, not half of one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    target = write_target(path, follow_links=follow_links)
    mode = _mode_for(target)
    secrets = known_secrets()
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        os.chmod(temp, mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            for chunk in chunks:
                handle.write(cut_secrets(chunk, secrets))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def write_target(path: Path, *, follow_links: bool) -> Path:
    """The file an atomic write to ``path`` renames its new file over, or an ``OSError`` naming what
    ``path`` is when no file may be renamed there.

    The write renames a new file over its path, so a device, a FIFO or a socket is refused: run as
    root, ``-o /dev/null`` made the null device a regular file. A symbolic link, without
    ``follow_links`` (cassettes), is replaced and what it points to is untouched. With
    ``follow_links`` (reports, the reviews file), the link is kept and the file it points to is
    replaced, in that file's own directory: ``latest.json -> runs/2026-12-05.json`` gets the new
    report in ``runs/2026-12-05.json`` (or makes it, if the link points to nothing yet in a
    directory that exists); a link to anything but a regular file is refused. A directory refuses
    the rename itself.
    """
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return path
    if stat.S_ISLNK(mode):
        return _link_target(path) if follow_links else path
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise OSError(errno.EINVAL, f"it is {kind_of(mode)}, not a regular file")
    return path


def _link_target(link: Path) -> Path:
    """The regular file (or nothing yet) the symbolic link ``link`` ends at, link by link.

    Resolved here, not by the kernel, so the kernel's rule for links in a shared directory
    (Linux's ``fs.protected_symlinks``) is applied here too: a link in a sticky, world-writable
    directory (``/tmp``) is followed only if it is ours or the directory owner's; another user's
    link there could point a report at any file of ours."""
    current = link
    for _ in range(_MOST_LINKS):
        _check_link_owner(current)
        pointed = Path(os.readlink(current))
        current = pointed if pointed.is_absolute() else current.parent / pointed
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            target = Path(os.path.realpath(current))
            if not target.parent.is_dir():
                from pytest_citecheck._text import shell_quote  # on the error's path only

                # Not made here, as a plain path's directory is: the link may point where it was not meant to.
                raise MissingDirectoryError(
                    errno.ENOENT,
                    f"it is a symbolic link to {target}, in a directory that does not exist: make the directory "
                    f"(mkdir -p {shell_quote(target.parent)}), or point the link at a file in one that exists",
                ) from None
            return target
        if not stat.S_ISLNK(mode):
            break
    else:
        raise OSError(errno.ELOOP, f"it is a chain of more than {_MOST_LINKS} symbolic links (a loop?)")
    target = Path(os.path.realpath(current))
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, f"it is a symbolic link to {kind_of(mode)} ({target}), not to a regular file")
    return target


# As many links as Linux follows in one path (MAXSYMLINKS).
_MOST_LINKS = 40


def _check_link_owner(link: Path) -> None:
    euid = getattr(os, "geteuid", None)
    if euid is None:
        return
    owner = os.lstat(link).st_uid
    directory = os.stat(link.parent)
    shared = directory.st_mode & stat.S_ISVTX and directory.st_mode & stat.S_IWOTH
    if shared and owner not in (euid(), directory.st_uid):
        raise OSError(
            errno.EACCES,
            f"it is a symbolic link of another user (uid {owner}) in a shared directory ({os.path.abspath(link.parent)}), "
            "which is not followed",
        )


def _mode_for(path: Path) -> int:
    """The permission bits a file written at ``path`` should have: its current ones, or the umask's."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return 0o666 & ~_umask()


_UMASK_LOCK = threading.Lock()


def _umask() -> int:
    """The process's umask, read without changing it where the system allows (Linux's /proc)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    # Elsewhere the only way to read it is to set it; the lock keeps our own threads from racing.
    with _UMASK_LOCK:
        current = os.umask(0o022)
        os.umask(current)
    return current


def locks_directory() -> Path:
    """This user's directory of lock files, in the temporary directory (one per user: /tmp is shared)."""
    suffix = f"-{os.getuid()}" if hasattr(os, "getuid") else ""
    return Path(tempfile.gettempdir()) / f"{LOCKS_DIRECTORY_NAME}{suffix}"


def lock_path_for(path: Path) -> Path:
    """The lock file that guards ``path`` (in ``locks_directory()``, named by its resolved path)."""
    digest = sha256(str(path.resolve()).encode()).hexdigest()[:32]
    return locks_directory() / f"{digest}.lock"


@contextlib.contextmanager
def interprocess_lock(path: Path) -> Iterator[None]:
    """Hold the inter-process lock of ``path`` (a file lock; threads of one process wait too).

    A lock directory that is not this user's own directory (another user made it, or it is a file
    or a symbolic link) is a ``LockUnavailableError`` naming it, not an error about ``path``.
    """
    from filelock import FileLock

    lock = lock_path_for(path)
    _check_locks_directory(lock.parent)
    try:
        guard = FileLock(lock, timeout=-1)
        guard.acquire()
    except OSError as error:
        raise LockUnavailableError(lock.parent, error.strerror or type(error).__name__) from None
    with contextlib.suppress(OSError):
        os.utime(lock)  # taken now: the lock directory's sweep (``_judge.sweeping``) leaves it for another day
    try:
        yield
    finally:
        guard.release()


def checked_locks_directory() -> Path:
    """``locks_directory()``, made if need be, once checked to be this user's own directory (else ``LockUnavailableError``)."""
    directory = locks_directory()
    _check_locks_directory(directory)
    return directory


def _check_locks_directory(directory: Path) -> None:
    try:
        directory.mkdir(mode=0o700, exist_ok=True)
        found = os.lstat(directory)
    except OSError as error:
        raise LockUnavailableError(directory, error.strerror or type(error).__name__) from None
    if not stat.S_ISDIR(found.st_mode):
        raise LockUnavailableError(directory, f"it is {kind_of(found.st_mode)}, not a directory")
    if hasattr(os, "getuid") and found.st_uid != os.getuid():
        raise LockUnavailableError(directory, f"it belongs to another user (uid {found.st_uid})")


def read_regular_file(path: Path, limit: int, *, head_only: bool = False) -> bytes:
    """The bytes of ``path``, which must be a regular file of at most ``limit`` bytes.

    Raises ``FileNotFoundError`` when there is no such file, and ``UnreadableFileError`` for a
    directory (``DirectoryError``), a device, a FIFO or a socket (checked on the opened file, without
    reading it or waiting for a writer) or a file longer than ``limit``. A symbolic link to a regular file is read.
    With ``head_only``, the first ``limit`` bytes of a longer file are its answer.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except IsADirectoryError:
        raise DirectoryError("it is a directory, not a regular file") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            kind = DirectoryError if stat.S_ISDIR(status.st_mode) else UnreadableFileError
            raise kind(f"it is {kind_of(status.st_mode)}, not a regular file")
        data = _read_to(fd, min(status.st_size, limit) + 1, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit and not head_only:
        raise UnreadableFileError(f"it is larger than {limit:,} bytes, the most pytest-citecheck reads")
    return data[:limit]


def broken_link(path: Path) -> tuple[Path, bool, str] | None:
    """A symbolic link on ``path`` that cannot be followed, whether it loops, and what is wrong with it; or
    None (there is none).

    For a path that reads as missing (``FileNotFoundError``) or loops (``ELOOP``): the first link on
    it, from the root down, that points to nothing (a dangling link, named with its target) or is in
    a loop (named with its chain). Looked for only on an error's path.
    """
    for link in (*reversed(path.parents), path):
        if not link.is_symlink():
            continue
        try:
            os.stat(link)
        except FileNotFoundError:
            return (
                link,
                False,
                f"{link} is a symbolic link to {os.readlink(link)}, which does not exist (a dangling link)",
            )
        except OSError as error:
            if error.errno != errno.ELOOP:
                raise
            chain = " -> ".join(_chain(link))
            return link, True, f"{link} is a symbolic link in a loop ({chain}), which never reaches a file"
    return None


def _chain(link: Path) -> list[str]:
    """The targets a looping link passes through, as written, until one repeats (at most ``_MOST_LINKS``)."""
    seen: list[Path] = [link]
    for _ in range(_MOST_LINKS):
        pointed = Path(os.readlink(seen[-1]))
        following = pointed if pointed.is_absolute() else seen[-1].parent / pointed
        if following in seen or not following.is_symlink():
            return [str(seen[0]), *(os.readlink(step) for step in seen)]
        seen.append(following)
    return [str(seen[0]), *(os.readlink(step) for step in seen), "..."]


# What one read asks for beyond a file's size (it grew since): allocated per read, so not the whole limit.
_CHUNK = 1 << 20


def _read_to(fd: int, first: int, most: int) -> bytes:
    """Read ``fd`` to its end or to ``most`` bytes: ``first`` at once (as much as the file held, and
    one more, so that a short read is its end), then on in chunks if it grew. Straight ``os.read``
    calls: no file object per read."""
    data = os.read(fd, first)
    if len(data) < first:  # the file's end (a regular file reads short only there)
        return data
    chunks = [data]
    got = len(data)
    while got < most:
        chunk = os.read(fd, min(most - got, _CHUNK))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


_KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
)


def kind_of(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "something other than a regular file")
