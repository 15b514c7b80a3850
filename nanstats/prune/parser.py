"""Predicates from text, for the command line and for users who prefer strings.

Grammar (lowest precedence first)::

    or_expr   := and_expr ("or" and_expr)*            ("|" also)
    and_expr  := not_expr ("and" not_expr)*           ("&" also)
    not_expr  := "not" not_expr | comparison          ("~" also)
    comparison:= sum (op sum | "between" sum "and" sum | ["not"] "in" "(" list ")"
                      | "is" ["not"] "null")?
    sum       := product (("+"|"-") product)*
    product   := unary (("*"|"/") unary)*
    unary     := "-" unary | primary
    primary   := number | string | "nan" | "inf" | "true" | "false" | name
                 | "is_nan(" or_expr ")" | "is_null(" or_expr ")" | "(" or_expr ")"

Operators: ``< <= > >= == != = <>``.  Names may contain dots (struct
fields) or be quoted in backticks.

>>> parse("x > 1.5 and not is_nan(y)")
((x > 1.5) and (not is_nan(y)))
>>> parse("t between -1 and 2 or s in ('a', 'b') or x is not null")
((((t >= -1) and (t <= 2)) or (s in ('a', 'b'))) or (not is_null(x)))
>>> parse("x >")
Traceback (most recent call last):
...
ValueError: cannot parse 'x >' at character 3: expected a value, found the end
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nanstats.prune.expressions import (
    Col,
    Compare,
    Expr,
    IsNan,
    IsNull,
    Lit,
    Not,
    as_expr,
)

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
    | (?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
    | (?P<quoted>`[^`]+`)
    | (?P<name>[A-Za-z_][A-Za-z0-9_.]*)
    | (?P<op><=|>=|==|!=|<>|<|>|=|\+|-|\*|/|\(|\)|,|&|\||~)
    )""",
    re.VERBOSE,
)

_COMPARE = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "==", "=": "==",
            "!=": "!=", "<>": "!="}


@dataclass(frozen=True)
class _Tok:
    kind: str
    text: str
    pos: int


def _tokens(text: str) -> list[_Tok]:
    out: list[_Tok] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise ValueError(f"cannot parse {text!r} at character {pos}: "
                             f"unexpected {text[pos:].strip()[:10]!r}")
        kind = m.lastgroup or ""
        start = m.start(kind)
        out.append(_Tok(kind, m.group(kind), start))
        pos = m.end()
    out.append(_Tok("end", "", len(text.rstrip())))
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokens(text)
        self.i = 0

    @property
    def tok(self) -> _Tok:
        return self.toks[self.i]

    def fail(self, expected: str) -> ValueError:
        t = self.tok
        found = "the end" if t.kind == "end" else repr(t.text)
        return ValueError(f"cannot parse {self.text!r} at character {t.pos}: "
                          f"expected {expected}, found {found}")

    def word(self, *words: str) -> bool:
        t = self.tok
        if t.kind == "name" and t.text.lower() in words:
            self.i += 1
            return True
        return False

    def sym(self, *symbols: str) -> str | None:
        t = self.tok
        if t.kind == "op" and t.text in symbols:
            self.i += 1
            return t.text
        return None

    def expect_sym(self, symbol: str) -> None:
        if self.sym(symbol) is None:
            raise self.fail(repr(symbol))

    def parse(self) -> Expr:
        e = self.or_expr()
        if self.tok.kind != "end":
            raise self.fail("an operator or the end")
        return e

    def or_expr(self) -> Expr:
        e = self.and_expr()
        while self.word("or") or self.sym("|"):
            e = e | self.and_expr()
        return e

    def and_expr(self) -> Expr:
        e = self.not_expr()
        while self.word("and") or self.sym("&"):
            e = e & self.not_expr()
        return e

    def not_expr(self) -> Expr:
        if self.word("not") or self.sym("~"):
            return Not(self.not_expr())
        return self.comparison()

    def comparison(self) -> Expr:
        left = self.sum()
        op = self.sym(*_COMPARE)
        if op is not None:
            return Compare(_COMPARE[op], left, self.sum())  # type: ignore[arg-type]
        if self.word("between"):
            low = self.sum()
            if not self.word("and"):
                raise self.fail("'and' after 'between ...'")
            return left.between(low, self.sum())
        negate = False
        save = self.i
        if self.word("not"):
            negate = True
            if not (self.tok.kind == "name" and self.tok.text.lower() == "in"):
                self.i = save
                return left
        if self.word("in"):
            self.expect_sym("(")
            values = [self.sum()]
            while self.sym(","):
                values.append(self.sum())
            self.expect_sym(")")
            e = left.isin(values)
            return Not(e) if negate else e
        if self.word("is"):
            negated = self.word("not")
            if not self.word("null"):
                raise self.fail("'null' after 'is'")
            e = IsNull(left)
            return Not(e) if negated else e
        return left

    def sum(self) -> Expr:
        e = self.product()
        while (op := self.sym("+", "-")) is not None:
            r = self.product()
            e = e + r if op == "+" else e - r
        return e

    def product(self) -> Expr:
        e = self.unary()
        while (op := self.sym("*", "/")) is not None:
            r = self.unary()
            e = e * r if op == "*" else e / r
        return e

    def unary(self) -> Expr:
        if self.sym("-"):
            return -self.unary()
        return self.primary()

    def primary(self) -> Expr:
        t = self.tok
        if t.kind == "number":
            self.i += 1
            is_int = re.fullmatch(r"\d+", t.text) is not None
            return Lit(int(t.text) if is_int else float(t.text))
        if t.kind == "string":
            self.i += 1
            body = t.text[1:-1]
            return Lit(re.sub(r"\\(.)", r"\1", body))
        if t.kind == "quoted":
            self.i += 1
            return Col(t.text[1:-1])
        if self.sym("("):
            e = self.or_expr()
            self.expect_sym(")")
            return e
        if t.kind == "name":
            low = t.text.lower()
            constants = {"nan": float("nan"), "inf": float("inf"), "true": True,
                         "false": False}
            if low in constants:
                self.i += 1
                return as_expr(constants[low])
            if low in ("is_nan", "isnan", "is_null", "isnull") and \
                    self.toks[self.i + 1].text == "(":
                self.i += 2
                arg = self.or_expr()
                self.expect_sym(")")
                return IsNan(arg) if low in ("is_nan", "isnan") else IsNull(arg)
            if low in ("and", "or", "not", "in", "between", "is", "null"):
                raise self.fail("a value")
            self.i += 1
            return Col(t.text)
        raise self.fail("a value")


def parse(text: str) -> Expr:
    """Parse a predicate from text (see the module docs for the grammar).

    >>> parse("-x * 2 >= -nan")
    (((-x) * 2) >= -nan)
    """
    if not isinstance(text, str):
        raise TypeError(f"parse() takes a string, not {type(text).__name__}")
    if not text.strip():
        raise ValueError("an empty predicate")
    return _Parser(text).parse()


def as_predicate(predicate: Expr | str) -> Expr:
    """A predicate given as an expression or as text.

    >>> from nanstats.prune.expressions import col
    >>> as_predicate("x < 2").same_as(col("x") < 2)
    True
    """
    if isinstance(predicate, str):
        return parse(predicate)
    if isinstance(predicate, Expr):
        return predicate
    raise TypeError(f"a predicate is an expression or a string, not {type(predicate).__name__}")
