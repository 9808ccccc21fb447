"""Step 3, the gate: the rule of ``auto_accept`` and what a test's results mean, and the words for both.

``rule``: when a verdict stands on its own (``stands_at``), the building of a judged citation's
result (``judged_result``, ``fabricated_result``), and the ``Ruling`` on a test's results (``decide``); ``messages``: the
failure message, the review and misattribution warnings and their table.

Internal: import from ``pytest_citecheck``, not from here.
"""

from pytest_citecheck._gate.messages import failure_message as failure_message
from pytest_citecheck._gate.messages import misattributed_message as misattributed_message
from pytest_citecheck._gate.messages import place as place
from pytest_citecheck._gate.messages import result_table as result_table
from pytest_citecheck._gate.messages import review_message as review_message
from pytest_citecheck._gate.messages import where_cited as where_cited
from pytest_citecheck._gate.rule import Ruling as Ruling
from pytest_citecheck._gate.rule import decide as decide
from pytest_citecheck._gate.rule import fabricated_result as fabricated_result
from pytest_citecheck._gate.rule import fails_on_a_flag as fails_on_a_flag
from pytest_citecheck._gate.rule import judged_result as judged_result
from pytest_citecheck._gate.rule import stands_at as stands_at
