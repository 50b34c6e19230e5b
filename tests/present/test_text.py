"""data_text.py and present/text.py: the one way data strings are shown (escaped, cut) and reach the terminal (markup escaped)."""

import random

from rich.console import Console
from rich.markup import escape

from msgperf.data_text import FIELD_LIMIT, cut, printable
from msgperf.present.text import escape_markup, safe
from tests.factories import replace


def test_escape_markup_is_richs_escape():
    rng = random.Random(7)
    for _ in range(20000):
        text = "".join(rng.choice("[]\\ab/#@A=") for _ in range(rng.randint(0, 14)))
        assert escape_markup(text) == escape(text), text


def test_safe_text_renders_as_itself_after_msgperfs_own_markup():
    console = Console(record=True, width=400, color_system=None)
    for text in ("[/x]", "[/bold]", "[link=http://e]a[/link]", "x\\", "x\\\\", "\\[b]", "[[a]]"):
        console.print(f"[bold]{safe(text)}[/] after")
    shown = console.export_text().splitlines()
    # as rich's own escape: a lone trailing backslash is kept, a pair before a tag shows as one
    assert shown == ["[/x] after", "[/bold] after", "[link=http://e]a[/link] after", "x\\ after", "x\\ after",
                     "\\[b] after", "[[a]] after"]


def test_long_strings_are_cut_with_a_mark_and_control_characters_escaped():
    assert cut("a" * FIELD_LIMIT) == "a" * FIELD_LIMIT
    assert cut("a" * (FIELD_LIMIT + 5)) == "a" * FIELD_LIMIT + "…(+5 chars)"
    assert printable("\x1b[31mred\r", 100) == "\\x1b[31mred\\x0d"
    assert safe("\\" * 1_000_000, 10) == "\\" * 10 + "…(+999990 chars)"


def test_a_profile_summary_shows_hosts_and_argv_as_text():
    """present/profile_summary.py: a rank's host "[/x]" raised MarkupError; argv with ESC reached
    the terminal."""

    from tests.factories import sample_profile

    from msgperf.present.profile_summary import render_profile
    profile = sample_profile()
    ranks = tuple(replace(r, host="[/x]" + "h" * 300) for r in profile.ranks)
    info = replace(profile.info, argv=("./app\x1b[2J", "[/bold]"), hosts=("[/x]",) * 2)
    console = Console(record=True, width=200, color_system=None)
    render_profile(console, replace(profile, info=info, ranks=ranks))
    shown = console.export_text()
    assert "./app\\x1b[2J [/bold]" in shown and "\x1b" not in shown
    assert "[/x]hhh" in shown and "h" * (FIELD_LIMIT - 3) not in "".join(shown.split())  # cut before rich lays it out
