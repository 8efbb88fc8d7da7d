"""Cursor-paginated lists: one page as a dataclass, every item as an iterator that fetches page after page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Generic, Iterator, Mapping, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list: pass ``next_cursor`` back (as ``cursor``, or ``after`` for events) for the next."""

    items: list[T]
    next_cursor: str | None
    has_more: bool

    @classmethod
    def from_wire(cls, data: Mapping[str, Any], item: Callable[[Mapping[str, Any]], T]) -> Page[T]:
        return cls([item(i) for i in data["items"]], data.get("next_cursor"), bool(data.get("has_more", False)))


def all_pages(page: Callable[[str | None], Page[T]]) -> Iterator[T]:
    """Every item, fetching the next page only when the caller has consumed the previous one."""
    cursor: str | None = None
    while True:
        current = page(cursor)
        yield from current.items
        if not (current.has_more and current.next_cursor):
            return
        cursor = current.next_cursor
