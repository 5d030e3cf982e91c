"""The options both front methods take: the objectives, their boxes, and which columns l and cm measure."""

from __future__ import annotations

from anonset.methods.base import Option

__all__ = ["FRONT_OPTIONS"]

FRONT_OPTIONS: tuple[Option, ...] = (
    Option("objectives", "names", ("k", "glm"), "at least two properties of the front: privacy (k, l, s_k, s_l) and"
           " loss (glm, cm)", choices=("k", "l", "s_k", "s_l", "glm", "cm")),
    Option("epsilon", "numbers", None, "box-dominance discretization, one positive number per objective (unset:"
           " plain dominance)", optional=True, low=0),
    Option("sensitive", "str", None, "the sensitive attribute of l and s_l (default: the only one)", optional=True),
    Option("target", "str", None, "the class label of cm (default: the only target column)", optional=True),
)
