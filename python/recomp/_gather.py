"""recomp.gather and what it gives: the evidence of a block and recomp's verdict on it as data."""
import collections
import contextlib


class Recompiled(AssertionError):
    """A program compiled again inside gather(raise_on_recompile=True); report is recomp's
    answer as data."""

    __module__ = "recomp"

    def __init__(self, message, report):
        super().__init__(message)
        self.report = report


class Evidence:
    """What gather() gathered: compilations (the probe's records of the block, a live list),
    and once the block ended, report (recomp's JSON) and folder (the run folder)."""

    __module__ = "recomp"

    def __init__(self, folder):
        self.folder, self.compilations, self.report = folder, [], None
        self._block = None  # in a run folder the block shares: the programs it compiled again

    @property
    def recompiled(self):
        """The programs that compiled again (verdict.programs): in a run folder of the block's
        own, the folder's; in the folder of a recomp run or pytest --recomp it joined, those the
        block itself compiled more than once (what ran before it is not the block's)."""
        programs = ((self.report or {}).get("verdict") or {}).get("programs") or []
        if self._block is None:
            return programs
        return [p for p in programs if p.get("program") in self._block]


@contextlib.contextmanager
def gather(out=None, raise_on_recompile=False, framework="auto", dump="before"):
    """Switches recomp's evidence on for the block (a run folder made, or the one of the recomp
    run or pytest --recomp this process is under) and yields an Evidence; at the end of the
    block, its report is recomp's answer on the run folder."""
    from ._session import Session, record_keys
    session = Session(out=out, command=["python"], framework=framework, dump=dump).open()
    own = session.owner  # the folder is the block's own, else a parent's: its other compilations are not the block's
    ev = Evidence(session.folder)
    session.listeners.append(ev.compilations.append)
    failed = False
    try:
        yield ev
    except BaseException:
        failed = True
        raise
    finally:
        try:
            session.listeners.remove(ev.compilations.append)
        except ValueError:
            pass
        keys = record_keys(ev.compilations)
        if own or not all(k[1] for k in keys):
            # the whole folder is the block's (or a record names no program, JAX 0.4's: the
            # folder's answer, never none)
            ev.report = session.close(1 if failed else 0, report=True)["report"]
        else:
            got = session.close(1 if failed else 0, judge=keys)
            ev.report = got["report"]
            ev._block = {got["programs"][k] for k, n in collections.Counter(keys).items() if n > 1}
    if raise_on_recompile and ev.recompiled:
        lines = [p.get("summary") or p.get("program", "") for p in ev.recompiled]
        raise Recompiled("recomp: compiled again: " + "; ".join(lines), ev.report)
