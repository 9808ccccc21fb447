"""Regenerate the HTML report screenshots in docs/img/ from the RFC 7519 example.

Runs the cookbook's eight citations through pytest-citecheck, records Jev's answers from a loopback
``JevServer`` that replays the cookbook's own recorded jev-1.12 answers (``json_cache.json``: the
numbers of the published table), records one human decision with ``citecheck review``, writes the
HTML report, and photographs it with headless Chromium (Debian's ``chromium`` and
``chromium-driver``; ``pip install selenium``).

    python docs/img/make_report_screenshots.py [--answers PATH/json_cache.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from chromium import headless_chromium

from pytest_citecheck.testing import JevServer, Reply

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
EXAMPLE = REPO / "examples" / "rfc7519"
# The cookbook's own recorded answers, as the example keeps them.
DEFAULT_ANSWERS = EXAMPLE / "json_cache.json"
TEST_FILE = '''
import json, pathlib
from pytest_citecheck import Source, check_citations

HERE = pathlib.Path(__file__).parent

def test_rfc7519_answer():
    citations = json.loads((HERE / "citations.json").read_text())
    check_citations(citations, Source.from_file(HERE / "rfc7519.txt"))
'''


def cookbook_answerer(answers: dict[str, Any]) -> Any:
    """Answer as jev-1.12 did for the cookbook: keyed by sha256("ask|" + claim + "|" + section)."""

    def answer(claim: str, section: str) -> Any:
        recorded = answers.get(hashlib.sha256(f"ask|{claim}|{section}".encode()).hexdigest())
        if recorded is None:
            return Reply(500, {"detail": "no recorded cookbook answer for this claim and section"})
        return {key: recorded[key] for key in ("choice", "confidence", "probabilities")} | {"type": "choice"}

    return answer


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> None:
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    print(result.stdout[-3000:], result.stderr[-2000:], sep="\n")
    if result.returncode not in (0,):
        raise SystemExit(f"{' '.join(cmd)} exited {result.returncode}")


def screenshot(page: Path, out_dir: Path) -> None:
    from selenium.webdriver.common.by import By

    with headless_chromium(1200, 1000) as driver:
        driver.get(page.as_uri())
        driver.save_screenshot(str(out_dir / "report-overview.png"))
        for card in driver.find_elements(By.CSS_SELECTOR, "article.citation"):
            name = card.find_element(By.TAG_NAME, "h3").text.split()[1]
            if name in ("pii_encryption", "iat_future"):
                driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", card)
                card.screenshot(str(out_dir / f"report-{name.replace('_', '-')}.png"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=Path, default=DEFAULT_ANSWERS)
    args = parser.parse_args()
    answers = json.loads(args.answers.read_text())
    with tempfile.TemporaryDirectory() as temp, JevServer(cookbook_answerer(answers), model="jev-1.12") as server:
        work = Path(temp)
        for name in ("rfc7519.txt", "citations.json"):
            shutil.copy(EXAMPLE / name, work / name)
        (work / "test_rfc7519.py").write_text(TEST_FILE)
        (work / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
        env = {**os.environ, "TYPESAFE_BASE_URL": server.url, "TYPESAFE_API_KEY": "sk-loopback-only"}
        pytest = [sys.executable, "-m", "pytest", "-q", "--citecheck-model=jev-1.12"]
        run([*pytest, "--citecheck-record-mode=once", "--citecheck-json=report.json"], work, env)
        run([sys.executable, "-m", "pytest_citecheck", "review", "--report", "report.json", "--set", "iat_future=unsupported",
             "--by", "Ada Reviewer", "--note", "4.1.6 defines iat but says nothing about rejecting future times"], work, env)
        run([*pytest, "--citecheck-record-mode=once", "--citecheck-html=report.html", "--citecheck-json=report.json"], work, env)
        shutil.copy(work / "report.html", HERE / "report-rfc7519.html")
        screenshot(work / "report.html", HERE)
    print(f"wrote {HERE}/report-*.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
