# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Preflight GPU memory budget: SGLang's startup accounting replayed per pinned version.

Public entry points live in :mod:`.engine` (``evaluate``, ``find_fixes``, ``BudgetInputError``).
"""

from __future__ import annotations
