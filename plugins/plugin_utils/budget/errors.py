# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one exception the budget engine raises for bad input."""

from __future__ import annotations


class BudgetInputError(ValueError):
    """An input to the budget engine is missing or wrong; the message names the field and the fix."""

    def __init__(self, field: str, problem: str, fix: str):
        self.field = field
        self.problem = problem
        self.fix = fix
        super().__init__(f"{field}: {problem}. Fix: {fix}")
