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

from boardlab.arena.study import Summary, shown_label
from boardlab.core.files import write_atomic
from boardlab.core.game import Game
from boardlab.core.i18n import N_, _, language, pgettext
from boardlab.extras import import_extra

#: What each measure means, for the report's readers (the module docstring of
#: ``boardlab.arena.study`` gives the same in full).
#: Names and meanings are marked for the catalogue and translated where shown.
MEANINGS = {
    N_("first score"): N_(
        "the first player's mean result (win 1, draw ½, loss 0) with its 95% "
        "Wilson interval; 0.5 is a fair game"
    ),
    N_("exact"): N_(
        "the start's value for the first player under perfect play (points), where a "
        "solver knows it: + the first player wins, 0 a draw, − the second wins"
    ),
    N_("length"): N_("actions per game: median, and the 10th to 90th percentile"),
    N_("lead changes"): N_("how often the side ahead on points changed, per game"),
    N_("decisiveness"): N_(
        "the share of the game still to play when the winner took the lead for "
        "good (0: decided by the last action); draws left out"
    ),
    N_("branching"): N_("legal actions at each position of the game, on average"),
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
        (_("The first player's score"), score_plot(rows)),
        (_("Game length"), length_plot(rows)),
        (_("Draws, lead changes, decisiveness, branching"), measures_plot(rows)),
    ]
    said = " · ".join(
        f"{_setting_name(k)}: {_setting_value(k, v)}" for k, v in settings.items() if k != "command"
    )
    heading = html.escape(_("{game}: a variant study").format(game=game.name))
    command = f"<code>{html.escape(str(settings.get('command', '')))}</code>"
    reproduce = html.escape(_("Reproduce: {command}")).format(command=command)
    measures = html.escape(_("The measures"))
    body = [
        f"<h1>{heading}</h1>",
        f"<p class=settings>{html.escape(said)}</p>",
        f"<p>{reproduce}</p>",
        _table(rows),
        *(f"<h2>{html.escape(title)}</h2><figure>{svg}</figure>" for title, svg in plots),
        f"<h2>{measures}</h2><dl>",
        *(f"<dt>{html.escape(_(k))}</dt><dd>{html.escape(_(v))}</dd>" for k, v in MEANINGS.items()),
        "</dl>",
    ]
    page = f"""<!doctype html>
<html lang="{language()}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{heading}</title>
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


def _setting_name(key: str) -> str:
    """A study setting's name (a key of the settings) as the report shows it."""
    names = {
        "game": pgettext("study setting", "game"),
        "agent": pgettext("study setting", "agent"),
        "games": pgettext("study setting", "games"),
        "seed": pgettext("study setting", "seed"),
        "fixed": pgettext("study setting", "fixed"),
        "varied": pgettext("study setting", "varied"),
    }
    return names.get(key, key)


def _setting_value(key: str, value: Any) -> Any:
    """A setting's value as the report shows it: ``none`` (no option fixed or varied) in
    the reader's language, anything else as it is."""
    if key in ("fixed", "varied") and value == "none":
        return pgettext("study setting", "none")
    return value


def _table(rows: Sequence[Summary]) -> str:
    headings = [
        _("variant"),
        _("games"),
        _("first W-D-L"),
        _("first score (95%)"),
        _("exact"),
        _("draws"),
        _("length"),
        _("lead changes"),
        _("decisiveness"),
        _("branching"),
    ]
    titles = "".join(f"<th>{html.escape(heading)}</th>" for heading in headings)
    head = f"<div class=wide><table><thead><tr>{titles}</tr></thead><tbody>"
    lines = [head]
    for row in rows:
        data = row.row()
        exact = row.exact
        kind = "" if not exact else " class=win" if exact > 0 else " class=loss"
        decisive = data["decisiveness_mean"]
        cells = [
            html.escape(shown_label(row.label)),
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
    figure_module = import_extra("matplotlib.figure", _("the study's report"), "matplotlib")
    height = 1.6 + 0.32 * len(rows)
    return figure_module.Figure(figsize=(9.5, height), layout="constrained")


def _svg(figure: Any) -> str:
    """The figure as SVG for the page; its words stay text (the page's font), not a path
    drawn for every letter, which keeps a report small."""
    matplotlib = import_extra("matplotlib", _("the study's report"), "matplotlib")
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
                  label=_("self-play, 95% interval"))  # fmt: skip
    exact = [
        (p, _expected(r.exact)) for p, r in zip(places, rows, strict=True) if r.exact is not None
    ]
    if exact:
        axes.scatter([e for _, e in exact], [p for p, _ in exact], marker="D", s=36,
                     color="#d55e00", zorder=3, label=_("perfect play (exact)"))  # fmt: skip
    axes.axvline(0.5, color="#888", linestyle="--", linewidth=1)
    axes.set_xlim(-0.02, 1.02)
    axes.set_yticks(places, [shown_label(r.label) for r in rows])
    axes.set_xlabel(_("the first player's score"))
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
    axes.set_yticks(places, [shown_label(r.label) for r in rows])
    medians = sorted(statistics.median(r.lengths) for r in rows if r.lengths)
    if medians and medians[-1] > 10 * medians[0]:  # a variant that loops to the cap
        axes.set_xscale("log")
    axes.set_xlabel(_("actions per game"))
    axes.grid(axis="x", alpha=0.3)
    return _svg(figure)


def measures_plot(rows: Sequence[Summary]) -> str:
    figure = _figure(rows)
    panels = figure.subplots(1, 4, sharey=True)
    places = list(range(len(rows)))[::-1]
    shown = [
        (_("draw rate"), [r.draw_rate for r in rows]),
        (_("lead changes"), [r.lead_changes for r in rows]),
        (_("decisiveness"), [r.decisiveness or 0.0 for r in rows]),
        (_("branching"), [r.branching for r in rows]),
    ]
    for axes, (title, values) in zip(panels, shown, strict=True):
        axes.barh(places, values, color="#1f5fa8", height=0.6)
        axes.set_title(title, fontsize="medium")
        axes.set_xlim(left=0, right=max(values) * 1.1 or 1.0)
        axes.grid(axis="x", alpha=0.3)
    panels[0].set_yticks(places, [shown_label(r.label) for r in rows])
    return _svg(figure)
