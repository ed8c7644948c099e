"""Option schemas: each game declares its options as data, and creating a game checks them.

An option has a name, a type (int, bool or one word from a list), a default, the allowed
values or range, and a one-line description. Values arrive as Python values (API) or as
text (``key=value`` on the command line, record headers); both are validated here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from boardlab.core.errors import OptionError, clipped
from boardlab.core.fields import is_number
from boardlab.core.i18n import _

OptionValue = int | bool | str


@dataclass(frozen=True)
class Option:
    """One option of a game: its name, default, what it allows and what it means."""

    name: str
    default: OptionValue
    #: One line, marked with ``N_``: shown as ``_(option.description)``.
    description: str
    choices: tuple[str, ...] = ()
    low: int | None = None
    high: int | None = None
    #: A few words naming the option for people, marked with ``N_`` (a form's label:
    #: ``Who moves first``); shown as ``option.title()``. The name stands in when empty.
    label: str = ""
    #: Each of ``choices`` in words, in the same order, marked with ``N_``; a choice
    #: without words is shown as written.
    choice_labels: tuple[str, ...] = ()

    def title(self) -> str:
        """The option as people read it, in the current language (its label)."""
        return _(self.label) if self.label else self.name

    def choice_title(self, choice: str) -> str:
        """A choice of the option as people read it, in the current language."""
        if choice in self.choices and self.choices.index(choice) < len(self.choice_labels):
            return _(self.choice_labels[self.choices.index(choice)])
        return choice

    @property
    def kind(self) -> str:
        if isinstance(self.default, bool):
            return "bool"
        if isinstance(self.default, int):
            return "int"
        return "choice"

    def allowed(self) -> str:
        """What the option accepts, as a person would write it (in the current language;
        the values themselves are notation)."""
        if self.kind == "bool":
            return "true|false"
        if self.kind == "int":
            return _("an integer from {low} to {high}").format(low=self.low, high=self.high)
        return "|".join(self.choices)

    def parse(self, text: str) -> OptionValue:
        """The value of ``text`` for this option; raises OptionError if it is not allowed."""
        word = text.strip().lower()
        if self.kind == "bool":
            if word in ("true", "1", "yes", "on"):
                return True
            if word in ("false", "0", "no", "off"):
                return False
            raise self._refuse(text)
        if self.kind == "int":
            if not is_number(word.removeprefix("-")):
                raise self._refuse(text)
            return self.check(int(word))
        return self.check(word)

    def check(self, value: Any) -> OptionValue:
        """``value`` if it is allowed (bools are not ints here), else OptionError."""
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
        elif self.kind == "int":
            if (
                isinstance(value, int)
                and not isinstance(value, bool)
                and self.low is not None
                and self.high is not None
                and self.low <= value <= self.high
            ):
                return value
        elif isinstance(value, str) and value in self.choices:
            return value
        raise self._refuse(value)

    def format(self, value: OptionValue) -> str:
        """The text form of a value, as ``parse`` reads it."""
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    def _refuse(self, value: object) -> OptionError:
        return OptionError(
            _("bad value {value!r} for option {name!r}: expected {allowed}").format(
                value=clipped(value), name=self.name, allowed=self.allowed()
            )
        )


@dataclass(frozen=True)
class OptionSchema:
    """The options of one game, in the order they are documented."""

    options: tuple[Option, ...]

    def __iter__(self) -> Iterator[Option]:
        return iter(self.options)

    def get(self, name: str, game: str = "") -> Option:
        for option in self.options:
            if option.name == name:
                return option
        names = ", ".join(o.name for o in self.options)
        if game:
            message = _("unknown option {name!r} of {game}: the options are {names}")
        else:
            message = _("unknown option {name!r}: the options are {names}")
        raise OptionError(message.format(name=clipped(name), game=game, names=names))

    def defaults(self) -> dict[str, OptionValue]:
        return {o.name: o.default for o in self.options}

    def resolve(self, values: Mapping[str, Any], game: str = "") -> dict[str, OptionValue]:
        """All options with defaults filled in; values may be Python values or text."""
        resolved = self.defaults()
        for name, value in values.items():
            option = self.get(name, game)
            resolved[name] = option.parse(value) if isinstance(value, str) else option.check(value)
        return resolved

    def parse_assignments(self, items: Iterable[str], game: str = "") -> dict[str, OptionValue]:
        """Options given as ``key=value`` texts (command line, record headers)."""
        values: dict[str, OptionValue] = {}
        for item in items:
            name, sep, text = item.partition("=")
            if not sep or not name.strip():
                raise OptionError(
                    _("malformed option {item!r}: expected key=value").format(item=clipped(item))
                )
            option = self.get(name.strip(), game)
            values[option.name] = option.parse(text)
        return values

    def non_default(self, values: Mapping[str, OptionValue]) -> dict[str, OptionValue]:
        """The options whose value differs from the default, in schema order."""
        return {
            o.name: values[o.name]
            for o in self.options
            if o.name in values and values[o.name] != o.default
        }
