"""The hypothesis fuzz suite (issue #17): only ``JdslError`` subclasses escape, round trips
hold, nothing is written outside its folder, no secret reaches a message.

Budget: ``JDSL_FUZZ_EXAMPLES`` examples per target (default 25, derandomized, for
``make test``); ``make fuzz`` runs 10,000 per target with fresh random seeds (docs/fuzzing.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
