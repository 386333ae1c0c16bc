"""Text for a terminal: no control character of ours or of the user's data reaches it raw."""

from __future__ import annotations

from pytest_ragcheck.common.display import printable


def test_printable_escapes_every_control_character_but_newline_and_tab():
    text = "a\x1b[31mred\x1b[0m\x07\x00\r\x7f\x9b2J\x85 é ü ✓\n\tend"
    assert printable(text) == "a\\x1b[31mred\\x1b[0m\\x07\\x00\\x0d\\x7f\\x9b2J\\x85 é ü ✓\n\tend"
    controls = [chr(c) for c in (*range(0x20), *range(0x7F, 0xA0)) if chr(c) not in "\n\t"]
    assert not any(c in printable("".join(controls)) for c in controls)
    assert printable("plain text") == "plain text"
