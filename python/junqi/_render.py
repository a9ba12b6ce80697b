"""Text diagrams of JFEN positions, for the environments' ``render()``."""

from __future__ import annotations

FILES = "abcde"


def board_rows(jfen: str) -> list[list[str]] | None:
    """The board field of a JFEN as 12 rows (rank 12 first) of 5 tokens
    (``.`` empty, a letter, ``~X`` face-down, or whatever marks an unknown
    piece in a view); ``None`` if the field cannot be read this way."""
    board = jfen.split(" ", 1)[0]
    rows = []
    for rank in board.split("/"):
        row: list[str] = []
        i = 0
        while i < len(rank):
            ch = rank[i]
            if ch.isdigit():
                row.extend(["."] * int(ch))
                i += 1
            elif ch == "~" and i + 1 < len(rank):
                row.append(rank[i : i + 2])
                i += 2
            else:
                row.append(ch)
                i += 1
        if len(row) != 5:
            return None
        rows.append(row)
    return rows if len(rows) == 12 else None


def diagram(jfen: str, title: str | None = None) -> str:
    """A 12 × 5 text board of ``jfen`` (rank 12 at the top, files a–e), then the JFEN line."""
    rows = board_rows(jfen)
    lines = [title] if title else []
    if rows is None:
        lines.append(jfen)
        return "\n".join(lines) + "\n"
    for r, row in enumerate(rows):
        rank = 12 - r
        lines.append(f"{rank:>2} " + " ".join(f"{t:>2}" for t in row))
        if rank == 7:
            lines.append("   " + "~" * 14)  # the front line between the halves
    lines.append("   " + " ".join(f"{f:>2}" for f in FILES))
    lines.append(jfen)
    return "\n".join(lines) + "\n"


def emit(render_mode: str | None, text: str) -> str | None:
    """What ``render()`` gives: the text for ``"ansi"``; for ``"human"`` it is printed and ``None`` returned."""
    if render_mode == "human":
        print(text, end="")
        return None
    return text
