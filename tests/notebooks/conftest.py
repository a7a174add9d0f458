"""Make the tutorial test helpers (nb_tutorials.py) importable."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
