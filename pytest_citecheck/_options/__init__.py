"""Every knob of pytest-citecheck, declared once, and the one function that resolves them.

``table``: the one table (``OPTIONS``), one ``Option`` per knob, and the configuration page made
of it; ``parsing``: the parsers of their values; ``settings``: ``Settings``, which resolves them
(call > marker > command line > ini > default); ``keywords``: ``CheckOptions``, the per-test
keywords, loaded when first named (pytest loads this package in every run).
"""

from typing import TYPE_CHECKING, Any

from pytest_citecheck._options.parsing import MISATTRIBUTED_POLICIES as MISATTRIBUTED_POLICIES
from pytest_citecheck._options.parsing import QUESTION_NAMES as QUESTION_NAMES
from pytest_citecheck._options.parsing import RECORD_MODES as RECORD_MODES
from pytest_citecheck._options.parsing import REVIEW_POLICIES as REVIEW_POLICIES
from pytest_citecheck._options.parsing import UNUSED_POLICIES as UNUSED_POLICIES
from pytest_citecheck._options.parsing import MisattributedPolicy as MisattributedPolicy
from pytest_citecheck._options.parsing import RecordMode as RecordMode
from pytest_citecheck._options.parsing import ReviewPolicy as ReviewPolicy
from pytest_citecheck._options.parsing import UnusedPolicy as UnusedPolicy
from pytest_citecheck._options.settings import Settings as Settings
from pytest_citecheck._options.table import OPTIONS as OPTIONS
from pytest_citecheck._options.table import OPTIONS_BY_NAME as OPTIONS_BY_NAME
from pytest_citecheck._options.table import PER_TEST_OPTIONS as PER_TEST_OPTIONS
from pytest_citecheck._options.table import Option as Option
from pytest_citecheck._options.table import configuration_table as configuration_table
from pytest_citecheck._options.table import main as main

if TYPE_CHECKING:
    from pytest_citecheck._options.keywords import CheckOptions as CheckOptions


def __getattr__(name: str) -> Any:
    if name == "CheckOptions":
        from pytest_citecheck._options.keywords import CheckOptions

        return CheckOptions
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
