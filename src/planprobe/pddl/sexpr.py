"""PDDL text as S-expressions that remember where they stand in the file.

Why apart from the parser: reading parentheses and symbols (case-folded, comments
dropped, ``?`` always starting a token as in Fast Downward's reader) and turning an
offset into ``file:line:column`` is one job; interpreting the tree as a domain or a
problem (``parser``) is another.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from .errors import PDDLSyntaxError

__all__ = ["Node", "SList", "Source", "Sym", "describe"]

_TOKEN = re.compile(r"\s+|;[^\n]*|(\()|(\))|(\??[^\s();?]+|\?)")  # a '?' starts a token: '(p?x)' is '(p ?x)'


class Sym:
    """A symbol with its offset in the source (for error positions)."""

    __slots__ = ("pos", "text")

    def __init__(self, text: str, pos: int):
        self.text, self.pos = text, pos

    def __repr__(self) -> str:
        return self.text


class SList(list["Sym | SList"]):
    """A parenthesised list; ``pos`` is the offset of its '(' and ``end`` that of its ')'."""

    __slots__ = ("end", "pos")
    pos: int
    end: int


Node = Sym | SList


class Source:
    """The text of one file and the position → line:column mapping for errors."""

    def __init__(self, text: str, filename: str):
        self.text, self.filename = text, filename
        self._line_starts: list[int] | None = None

    def error(self, pos: int, message: str) -> PDDLSyntaxError:
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer(r"\n", self.text)]
        line = bisect_right(self._line_starts, pos)
        return PDDLSyntaxError(self.filename, line, pos - self._line_starts[line - 1] + 1, message)

    def read(self) -> SList:
        """The single top-level ``(define …)`` form as a tree."""
        stack: list[SList] = []
        top: SList | None = None
        for m in _TOKEN.finditer(self.text):
            if m.group(1):
                node = SList()
                node.pos = m.start()
                if stack:
                    stack[-1].append(node)
                elif top is not None:
                    raise self.error(m.start(), "expected end of file after the closing ')' of 'define', got '('")
                else:
                    top = node
                stack.append(node)
            elif m.group(2):
                if not stack:
                    raise self.error(m.start(), "unbalanced ')': no '(' is open here")
                stack.pop().end = m.start()
            elif m.group(3):
                if not stack:
                    raise self.error(m.start(), f"expected '(define', got {m.group(3)!r}")
                stack[-1].append(Sym(m.group(3).lower(), m.start()))
        if stack:
            raise self.error(len(self.text), f"unexpected end of file: {len(stack)} '(' not closed "
                                             f"(the innermost opened at {self._where(stack[-1].pos)})")
        if top is None:
            raise self.error(len(self.text), "expected '(define', got end of file")
        return top

    def _where(self, pos: int) -> str:
        err = self.error(pos, "")
        return f"line {err.line}, column {err.column}"


def describe(node: Node | None) -> str:
    """A node as an error message quotes it."""
    if node is None:
        return "')'"
    if isinstance(node, Sym):
        return repr(node.text)
    if node and isinstance(node[0], Sym):
        return f"'({node[0].text} …)'"
    return "'(…)'" if node else "'()'"
