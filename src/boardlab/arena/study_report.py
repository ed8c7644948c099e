"""A study's results as files: a table (CSV and JSON) and an HTML report with its plots
embedded as SVG, one file that opens anywhere without a network (no CDN, no script).

The plots need matplotlib (the ``study`` extra); the tables do not.
"""

from __future__ import annotations

import csv
import html
import io
import json
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from boardlab.arena.study import Summary
from boardlab.core.files import write_atomic
from boardlab.core.game import Game
from boardlab.extras import import_extra

#: What each measure means, for the report's readers (the module docstring of
#: ``boardlab.arena.study`` gives the same in full).
MEANINGS = {
    "first score": "the first player's mean result (win 1, draw ½, loss 0) with its 95% "
    "Wilson interval; 0.5 is a fair game",
    "exact": "the start's value for the first player under perfect play (points), where a "
    "solver knows it: + the first player wins, 0 a draw, − the second wins",
    "length": "actions per game: median, and the 10th to 90th percentile",
    "lead changes": "how often the side ahead on points changed, per game",
    "decisiveness": "the share of the game still to play when the winner took the lead for "
    "good (0: decided by the last action); draws left out",
    "branching": "legal actions at each position of the game, on average",
}


def write_tables(rows: Sequence[Summary], settings: Mapping[str, Any], folder: Path) -> list[Path]:
    """``study.csv`` (a row a variant) and ``study.json`` (the settings and the rows)."""
    table = [row.row() for row in rows]
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=list(table[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(table)
    return [
        write_atomic(folder / "study.csv", text.getvalue()),
        write_atomic(
            folder / "study.json",
            json.dumps({"settings": dict(settings), "variants": table}, indent=2) + "\n",
        ),
    ]


def write_report(
    game: Game[Any], rows: Sequence[Summary], settings: Mapping[str, Any], folder: Path
) -> Path:
    """``report.html``: the settings, the table, the plots and what the measures mean."""
    plots = [
        ("The first player's score", score_plot(rows)),
        ("Game length", length_plot(rows)),
        ("Draws, lead changes, decisiveness, branching", measures_plot(rows)),
    ]
    said = " · ".join(f"{k}: {v}" for k, v in settings.items() if k != "command")
    body = [
        f"<h1>{html.escape(game.name)}: a variant study</h1>",
        f"<p class=settings>{html.escape(said)}</p>",
        f"<p>Reproduce: <code>{html.escape(str(settings.get('command', '')))}</code></p>",
        _table(rows),
        *(f"<h2>{html.escape(title)}</h2><figure>{svg}</figure>" for title, svg in plots),
        "<h2>The measures</h2><dl>",
        *(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in MEANINGS.items()),
        "</dl>",
    ]
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(game.name)}: a variant study</title>
<style>
body {{ font: 15px/1.45 system-ui, sans-serif; max-width: 72rem; margin: 2rem auto;
  padding: 0 1rem; color: #1d2230; }}
h1 {{ font-size: 1.6rem; }} h2 {{ font-size: 1.2rem; margin-top: 2rem; }}
.settings {{ color: #566; }}
table {{ border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }}
th, td {{ padding: .3rem .5rem; border-bottom: 1px solid #dde; text-align: right;
  white-space: nowrap; }}
.wide {{ overflow-x: auto; }}
th:first-child, td:first-child {{ text-align: left; }}
thead th {{ background: #f2f4f8; white-space: normal; }}
.win {{ color: #0a6b2f; }} .loss {{ color: #a01818; }}
figure {{ margin: 0; overflow-x: auto; }} figure svg {{ max-width: 100%; height: auto; }}
dt {{ font-weight: 600; }} dd {{ margin: 0 0 .5rem 1rem; }}
code {{ background: #f2f4f8; padding: .1rem .3rem; }}
</style></head><body>
{chr(10).join(body)}
</body></html>
"""
    return write_atomic(folder / "report.html", page)


def _table(rows: Sequence[Summary]) -> str:
    head = (
        "<div class=wide><table><thead><tr><th>variant</th><th>games</th><th>first W-D-L</th>"
        "<th>first score (95%)</th><th>exact</th><th>draws</th><th>length</th>"
        "<th>lead changes</th><th>decisiveness</th><th>branching</th></tr></thead><tbody>"
    )
    lines = [head]
    for row in rows:
        data = row.row()
        exact = row.exact
        kind = "" if not exact else " class=win" if exact > 0 else " class=loss"
        decisive = data["decisiveness_mean"]
        cells = [
            html.escape(row.label),
            str(row.games),
            f"{row.first.wins}-{row.first.draws}-{row.first.losses}",
            f"{row.first_score:.3f} ({data['first_score_low']:.3f}–{data['first_score_high']:.3f})",
            "" if exact is None else f"<span{kind}>{exact:+d}</span>",
            f"{row.draw_rate:.1%}",
            f"{data['length_median']:g} ({data['length_p10']}–{data['length_p90']})",
            f"{row.lead_changes:.2f}",
            "" if decisive is None else f"{decisive:.2f}",
            f"{row.branching:.1f}",
        ]
        lines.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    lines.append("</tbody></table></div>")
    return "\n".join(lines)


# ---------------------------------------------------------------------- plots
def _figure(rows: Sequence[Summary]) -> Any:
    figure_module = import_extra("matplotlib.figure", "the study's report", "matplotlib")
    height = 1.6 + 0.32 * len(rows)
    return figure_module.Figure(figsize=(9.5, height), layout="constrained")


def _svg(figure: Any) -> str:
    """The figure as SVG for the page; its words stay text (the page's font), not a path
    drawn for every letter, which keeps a report small."""
    matplotlib = import_extra("matplotlib", "the study's report", "matplotlib")
    out = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        figure.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    text = out.getvalue()
    return text[text.index("<svg") :]  # the XML declaration has no place inside HTML


def score_plot(rows: Sequence[Summary]) -> str:
    figure = _figure(rows)
    axes = figure.subplots()
    places = list(range(len(rows)))[::-1]
    scores = [r.first_score for r in rows]
    intervals = [r.first.interval() for r in rows]
    below = [max(0.0, s - low) for s, (low, _) in zip(scores, intervals, strict=True)]
    above = [max(0.0, high - s) for s, (_, high) in zip(scores, intervals, strict=True)]
    axes.errorbar(scores, places, xerr=[below, above], fmt="o", color="#1f5fa8", capsize=3,
                  label="self-play, 95% interval")  # fmt: skip
    exact = [
        (p, _expected(r.exact)) for p, r in zip(places, rows, strict=True) if r.exact is not None
    ]
    if exact:
        axes.scatter([e for _, e in exact], [p for p, _ in exact], marker="D", s=36,
                     color="#d55e00", zorder=3, label="perfect play (exact)")  # fmt: skip
    axes.axvline(0.5, color="#888", linestyle="--", linewidth=1)
    axes.set_xlim(-0.02, 1.02)
    axes.set_yticks(places, [r.label for r in rows])
    axes.set_xlabel("the first player's score")
    figure.legend(loc="outside lower center", ncols=2, fontsize="small", frameon=False)
    axes.grid(axis="x", alpha=0.3)
    return _svg(figure)


def _expected(value: int) -> float:
    """The first player's score under perfect play: a win 1, a draw ½, a loss 0."""
    return 1.0 if value > 0 else 0.0 if value < 0 else 0.5


def length_plot(rows: Sequence[Summary]) -> str:
    figure = _figure(rows)
    axes = figure.subplots()
    places = list(range(len(rows)))[::-1]
    axes.boxplot([list(r.lengths) or [0] for r in rows], positions=places, orientation="horizontal",
                 widths=0.6, showfliers=True, flierprops={"markersize": 2})  # fmt: skip
    axes.set_yticks(places, [r.label for r in rows])
    medians = sorted(statistics.median(r.lengths) for r in rows if r.lengths)
    if medians and medians[-1] > 10 * medians[0]:  # a variant that loops to the cap
        axes.set_xscale("log")
    axes.set_xlabel("actions per game")
    axes.grid(axis="x", alpha=0.3)
    return _svg(figure)


def measures_plot(rows: Sequence[Summary]) -> str:
    figure = _figure(rows)
    panels = figure.subplots(1, 4, sharey=True)
    places = list(range(len(rows)))[::-1]
    shown = [
        ("draw rate", [r.draw_rate for r in rows]),
        ("lead changes", [r.lead_changes for r in rows]),
        ("decisiveness", [r.decisiveness or 0.0 for r in rows]),
        ("branching", [r.branching for r in rows]),
    ]
    for axes, (title, values) in zip(panels, shown, strict=True):
        axes.barh(places, values, color="#1f5fa8", height=0.6)
        axes.set_title(title, fontsize="medium")
        axes.set_xlim(left=0, right=max(values) * 1.1 or 1.0)
        axes.grid(axis="x", alpha=0.3)
    panels[0].set_yticks(places, [r.label for r in rows])
    return _svg(figure)
