# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""After-start truth: each real start's own numbers, kept and compared with its preflight (issue 17).

:mod:`.startup` reads a launch's startup lines per rank.
"""
