"""Robustness variants of formal cases (APB's settings, made exact): extraneous
tools, a broken tool with a designated replacement, unsolvable tasks that must be
refused, and cost-aware tools. See ``transforms.robustify`` and docs/robustness.md.
"""

from .family import RobustFamily
from .spec import FAMILY
from .transforms import TRANSFORM_HELP, parse_transforms, robustify

__all__ = ["FAMILY", "TRANSFORM_HELP", "RobustFamily", "parse_transforms", "robustify"]
