"""Names that look the same: the *look* of a player's name (Unicode TR39's skeleton idea, kept small).

An account's name is unique by its look (:func:`name_look`), so that nobody can register ``Аnn`` (with a Cyrillic
``А``) beside ``Ann``, and a guest may not call themselves by an account's name or a look-alike of it
(:mod:`nardy.web.routers.auth`). The look of a name is, in order:

1. NFKC (compatibility forms: full-width ``Ａｎｎ``, ligatures, superscripts become plain letters),
2. casefolded (``ANN``, ``Ann`` and ``ann`` are one name),
3. decomposed (NFD: a letter and its accents apart, so that Cyrillic ``ё`` follows ``е`` to Latin ``e``),
4. each Cyrillic or Greek letter drawn like a Latin one replaced by that Latin letter (:data:`CONFUSABLES`: after
   casefolding, so a letter whose capital looks Latin counts too: ``Н``/``н`` as ``h``, ``В``/``в`` as ``b``),
5. composed again (NFC).

Two names with one look are the same name for accounts. This is deliberately a small table (the letters of the
scripts players of nardy write in), not TR39's whole confusables list: names in other scripts are compared by
NFKC and case only.
"""

from __future__ import annotations

import unicodedata

__all__ = ["CONFUSABLES", "name_look"]

#: Lower-case Cyrillic and Greek letters (after casefolding) that are drawn as a Latin letter, in upper or lower
#: case, and the Latin letter they become. Cyrillic: а в е ѕ һ і ј к м н о р с т у х ԁ ԛ ԝ ӏ ү ɡ; Greek: α β ε η ι κ
#: μ ν ο ρ τ υ χ ζ (their capitals Α Β Ε Η Ι Κ Μ Ν Ο Ρ Τ Υ Χ Ζ are Latin letters to the eye).
CONFUSABLES: dict[str, str] = {
    # Cyrillic
    "а": "a",
    "в": "b",
    "е": "e",
    "ѕ": "s",
    "һ": "h",
    "і": "i",
    "ј": "j",
    "к": "k",
    "м": "m",
    "н": "h",
    "о": "o",
    "р": "p",
    "с": "c",
    "т": "t",
    "у": "y",
    "х": "x",
    "ԁ": "d",
    "ԛ": "q",
    "ԝ": "w",
    "ӏ": "l",
    "ү": "y",
    # Latin letters drawn like others
    "ɡ": "g",
    # Greek
    "α": "a",
    "β": "b",
    "ε": "e",
    "η": "h",
    "ι": "i",
    "κ": "k",
    "μ": "m",
    "ν": "n",
    "ο": "o",
    "ρ": "p",
    "τ": "t",
    "υ": "y",
    "χ": "x",
    "ζ": "z",
}
_TABLE = str.maketrans(CONFUSABLES)


def name_look(name: str) -> str:
    """The look of ``name``: what two names that a reader cannot tell apart have in common (see the module
    docstring). At most as long as ``name``'s NFKC casefolded form, as a rule.

    >>> name_look("Ann") == name_look("Аnn") == name_look("ＡＮＮ") == "ann"
    True
    >>> name_look("Нора") == name_look("Hopa")
    True
    >>> name_look("Иван") == name_look("Ivan")
    False
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    return unicodedata.normalize("NFC", unicodedata.normalize("NFD", folded).translate(_TABLE))
