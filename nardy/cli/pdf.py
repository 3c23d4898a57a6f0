"""HTML to PDF through a headless Chromium (``chromium --headless --print-to-pdf``): what ``nardy analyse --pdf``
uses to print the analysis report. No Python library does this without heavy system libraries (WeasyPrint
needs Pango; Playwright is a test tool that downloads its own browser), while Debian's ``chromium`` prints
the page exactly as the browser shows it, with the report's ``@media print`` rules.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

__all__ = ["PdfError", "find_chromium", "html_to_pdf"]

#: Program names tried in order (the environment variable ``NARDY_CHROMIUM`` names one first).
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


class PdfError(RuntimeError):
    """No Chromium to print with, or it failed (the message says which and how to fix it)."""


def find_chromium() -> str | None:
    """The path of a Chromium to print with (``$NARDY_CHROMIUM``, then :data:`CHROMIUM_NAMES` on ``PATH``),
    or ``None``."""
    env = os.environ.get("NARDY_CHROMIUM")
    for name in ((env,) if env else ()) + CHROMIUM_NAMES:
        path = shutil.which(name) or (name if os.path.isfile(name) and os.access(name, os.X_OK) else None)
        if path:
            return path
    return None


def html_to_pdf(page: str, out: Path, timeout: float = 180.0) -> None:
    """Print the HTML text ``page`` to the PDF file ``out`` (A4 or the printer default, no headers and
    footers) with a headless Chromium.

    Raises:
        PdfError: no Chromium found (install Debian's ``chromium`` or set ``NARDY_CHROMIUM``), it ran past
            ``timeout`` seconds, or it exited without writing the file.
    """
    exe = find_chromium()
    if exe is None:
        raise PdfError(
            "--pdf needs Chromium to print the report: install it (apt-get install chromium) "
            "or name it in NARDY_CHROMIUM; --html writes the page, which any browser prints"
        )
    out = Path(out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="nardy-pdf-") as tmp:
        src = Path(tmp) / "report.html"
        src.write_text(page, encoding="utf-8")
        args = [
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            f"--user-data-dir={tmp}/profile",
            "--no-pdf-header-footer",
            f"--print-to-pdf={out}",
            src.as_uri(),
        ]
        if out.exists():
            out.unlink()
        try:
            r = subprocess.run(args, capture_output=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise PdfError(f"chromium did not print the report within {timeout:.0f} s") from None
        if not out.exists() or out.stat().st_size == 0:
            tail = r.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
            raise PdfError(f"chromium wrote no PDF (exit {r.returncode}): " + " / ".join(tail))
