# -*- coding: utf-8 -*-
r'''Raw docstring with a backslash \ and an escaped quote \''' inside, def fake(): '''
import asyncio


class Outer:
	"""Tabs for indentation."""
	LIMIT = 3

	class Inner(object):
		def method(self):
			return f"{self!r:{'>'}{10}} {{def fake(): pass}}"

	@staticmethod
	@functools.lru_cache(
	    maxsize=128,
	)
	def cached(x): return x * 2


async def main(argv: list[str] | None = None) -> int:
    total = \
        1 + 2
    s = 'unterminated on purpose
    return total


def after_bad_string():
    pass
