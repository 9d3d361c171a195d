"""recomp.gather and what it gives: the evidence of a block and recomp's verdict on it as data."""
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

    @property
    def recompiled(self):
        return ((self.report or {}).get("verdict") or {}).get("programs") or []


@contextlib.contextmanager
def gather(out=None, raise_on_recompile=False, framework="auto", dump="before"):
    """Switches recomp's evidence on for the block (a run folder made, or the one of the recomp
    run or pytest --recomp this process is under) and yields an Evidence; at the end of the
    block, its report is recomp's answer on the run folder."""
    from ._session import Session
    session = Session(out=out, command=["python"], framework=framework, dump=dump).open()
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
        ev.report = session.close(1 if failed else 0, report=True)["report"]
    if raise_on_recompile and ev.recompiled:
        lines = [p.get("summary") or p.get("program", "") for p in ev.recompiled]
        raise Recompiled("recomp: compiled again: " + "; ".join(lines), ev.report)
