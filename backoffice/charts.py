"""The observed-RTP chart as server-side SVG geometry: no JavaScript, readable at any width (it scales with its
viewBox), with a title and description for screen readers and the same figures in a table beside it."""

from __future__ import annotations

import math
from dataclasses import dataclass

from backoffice.reports import SeriesPoint

WIDTH, HEIGHT = 720, 300
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 16, 40


@dataclass(frozen=True)
class Tick:
    position: float
    label: str


def _nice_step(span: float) -> float:
    for step in (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25, 0.5, 1.0):
        if span / step <= 6:
            return step
    return 2.0


# --- the daily chart and the funnel chart of the RTP monitor ---------------------------------------------
# Both are drawn on a 720-unit-wide viewBox with 112 units for the y labels: CSS sets the labels' size in user
# units (larger on a phone, where the SVG is drawn at about half size), so they stay legible at any width.
MLEFT = 112
MAX_X_TICKS = 4
SERIES_CLASSES = 6  # line-0 .. line-5 in app.css; more tables reuse the colours with their labels


@dataclass(frozen=True)
class Line:
    code: str
    css: str
    points: str  # polyline points
    markers: list[tuple[float, float, str]]
    theoretical_y: float | None


@dataclass(frozen=True)
class MonitorChart:
    width: int
    height: int
    plot: tuple[float, float, float, float]
    y_ticks: list[Tick]
    x_ticks: list[Tick]
    lines: list[Line]
    bands: list[tuple[str, str]]  # (css class, polygon points): the 99.7 % band, then the 95 % band
    shade: tuple[float, float, float, float] | None = None  # funnel: x, y, w, h of "not enough bets yet"


def _y_scale(values: list[float]) -> tuple[float, float, float]:
    low, high = min(values), max(values)
    pad = max((high - low) * 0.08, 0.002)
    low, high = low - pad, high + pad
    step = _nice_step(high - low)
    return (low // step) * step, (high // step + 1) * step, step


def _y_ticks(low: float, high: float, step: float, y) -> list[Tick]:
    ticks, value = [], low
    while value <= high + step / 2:
        ticks.append(Tick(round(y(value), 1), f"{value * 100:.{2 if step < 0.01 else 1}f} %"))
        value += step
    return ticks


def daily_chart(lines: list[tuple[object, list[SeriesPoint]]], *, since, until, hourly: bool) -> MonitorChart | None:
    """Cumulative observed RTP of each table over the whole period, placed by time (a day with no bets leaves a
    gap in time, not a squeezed axis); one table's chart carries its 95 % and 99.7 % bands."""
    drawn = [(t, [p for p in points if p.observed is not None]) for t, points in lines]
    drawn = [(t, points) for t, points in drawn if points]
    if not drawn:
        return None
    step_length = (3600 if hourly else 86400)
    values = [p.observed for _, points in drawn for p in points]
    single = len(drawn) == 1
    if single:
        values += [v for p in drawn[0][1] if p.enough for v in (p.low_997, p.high_997) if v is not None]
    theories = {t.code: _theory_of(points) for t, points in drawn}
    values += [v for v in theories.values() if v is not None]
    low, high, step = _y_scale(values)
    left, top, right, bottom = MLEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM
    span = (until - since).total_seconds()

    def x(at) -> float:
        # A bucket's cumulative figure holds at its end.
        seconds = min((at - since).total_seconds() + step_length, span)
        return round(left + (right - left) * seconds / span, 1)

    def y(value: float) -> float:
        return round(bottom - (bottom - top) * (min(max(value, low), high) - low) / (high - low), 1)

    fmt = "%d %b %H:00" if hourly else "%d %b"
    result = []
    for index, (t, points) in enumerate(drawn):
        markers = [(x(p.at), y(p.observed), f"{t.code} {p.at.strftime(fmt)}: {p.observed * 100:.2f} % so far "
                    f"({p.rounds} rounds that {'hour' if hourly else 'day'})") for p in points]
        theory = theories[t.code]
        result.append(Line(code=t.code, css=f"line-{index % SERIES_CLASSES}",
                           points=" ".join(f"{mx},{my}" for mx, my, _ in markers), markers=markers,
                           theoretical_y=y(theory) if theory is not None else None))
    bands = []
    if single:
        judged = [p for p in drawn[0][1] if p.enough and p.low is not None and p.low_997 is not None]
        for css, lo, hi in (("band-997", "low_997", "high_997"), ("band", "low", "high")):
            if judged:
                edge = [(x(p.at), y(getattr(p, hi))) for p in judged]
                edge += [(x(p.at), y(getattr(p, lo))) for p in reversed(judged)]
                if len(judged) == 1:
                    only = judged[0]
                    edge = [(left, y(getattr(only, hi))), (right, y(getattr(only, hi))),
                            (right, y(getattr(only, lo))), (left, y(getattr(only, lo)))]
                bands.append((css, " ".join(f"{px},{py}" for px, py in edge)))
    ticks = []
    for i in range(MAX_X_TICKS + 1):
        at = since + (until - since) * i / MAX_X_TICKS
        ticks.append(Tick(round(left + (right - left) * i / MAX_X_TICKS, 1), at.strftime(fmt)))
    return MonitorChart(width=WIDTH, height=HEIGHT, plot=(left, top, right, bottom),
                        y_ticks=_y_ticks(low, high, step, y), x_ticks=ticks, lines=result, bands=bands)


def _theory_of(points: list[SeriesPoint]) -> float | None:
    return points[-1].theoretical


def funnel_chart(rows: list, lines: list[tuple[object, list[SeriesPoint]]]) -> MonitorChart | None:
    """Observed RTP against the (effective) number of bets, log scale, inside the funnels theoretical ±1.96 and
    ±3 standard errors, clamped to what a bet can return. One dot per table (its path too when one table is
    shown); the funnel uses the stake-weighted theoretical RTP and σ of the rows shown."""
    rows = [r for r in rows if r.observed is not None and r.theoretical is not None and r.sigma is not None]
    if not rows:
        return None
    weight = sum(r.initial for r in rows)
    theory = sum(r.theoretical * r.initial for r in rows) / weight
    sigma = sum(r.sigma * r.initial for r in rows) / weight
    floor, ceiling = min(r.low for r in rows), max(r.high for r in rows)
    min_bets = max(r.min_bets for r in rows)
    path = lines[0][1] if len(lines) == 1 else []
    counts = [max(r.effective_bets, 1.0) for r in rows] + [max(p.bets, 1.0) for p in path]
    n_low, n_high = max(1.0, min(min(counts), min_bets) / 2), max(max(counts), min_bets) * 2
    values = [r.observed for r in rows] + [p.observed for p in path if p.observed is not None]
    values += [theory, min(theory + 3 * sigma / n_high ** 0.5, ceiling), max(theory - 3 * sigma / n_high ** 0.5,
                                                                           floor)]
    low, high, step = _y_scale(values)
    left, top, right, bottom = MLEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM
    def x(n: float) -> float:
        return round(left + (right - left) * math.log(max(n, n_low) / n_low) / math.log(n_high / n_low), 1)

    def y(value: float) -> float:
        return round(bottom - (bottom - top) * (min(max(value, low), high) - low) / (high - low), 1)

    grid = [n_low * (n_high / n_low) ** (i / 40) for i in range(41)]
    bands = []
    for css, z in (("band-997", 3.0), ("band", 1.96)):
        upper = [(x(n), y(min(theory + z * sigma / n ** 0.5, ceiling))) for n in grid]
        lower = [(x(n), y(max(theory - z * sigma / n ** 0.5, floor))) for n in reversed(grid)]
        bands.append((css, " ".join(f"{px},{py}" for px, py in upper + lower)))
    result = []
    for index, r in enumerate(rows):
        markers = [(x(r.effective_bets), y(r.observed), f"{r.table.code}: {r.observed * 100:.2f} % after "
                    f"{r.bets} bets ({r.verdict})")]
        points = ""
        if path:
            track = [(x(p.bets), y(p.observed)) for p in path if p.observed is not None]
            points = " ".join(f"{px},{py}" for px, py in track)
        result.append(Line(code=r.table.code, css=f"line-{index % SERIES_CLASSES}", points=points, markers=markers,
                           theoretical_y=None))
    x_ticks = []
    decade = 10 ** math.ceil(math.log10(n_low))
    while decade <= n_high:
        x_ticks.append(Tick(x(decade), f"{decade:,}"))
        decade *= 10
    return MonitorChart(width=WIDTH, height=HEIGHT, plot=(left, top, right, bottom),
                        y_ticks=_y_ticks(low, high, step, y), x_ticks=x_ticks, lines=result, bands=bands,
                        shade=(left, top, round(x(min_bets) - left, 1), bottom - top) if min_bets > n_low else None)
