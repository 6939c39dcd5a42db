#!/usr/bin/env python3
"""Module doc with def fake(): and class Fake: inside."""
import os, sys as system
from collections import (
    OrderedDict,
    defaultdict,
)
MAX_SIZE = 10
name: str = "x"  # def not_this():

@dataclass(frozen=True)
class Point(Base, metaclass=Meta):
    x: int = 0
    y: int = field(default_factory=lambda: {'a': "}"})
    s = r"\"def nope():"
    t = '''
def also_not():
    pass
'''
    def __init__(self, x,
                 y=(1, 2)) -> None:
        self.x = x
        def inner(a): return a

    @property
    async def norm(self) -> float: return 0.0

if TYPE_CHECKING:
    def typed() -> None: ...

def top(*args, **kw):
    x = f"{args!r:>10} {{not}} {kw['a']}"
    return \
        x
class Empty: pass
type Alias = list[int]
