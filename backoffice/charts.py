"""The observed-RTP chart as server-side SVG geometry: no JavaScript, readable at any width (it scales with its
viewBox), with a title and description for screen readers and the same figures in a table beside it."""

from __future__ import annotations

from dataclasses import dataclass

from backoffice.reports import SeriesPoint

WIDTH, HEIGHT = 720, 300
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 16, 40


@dataclass(frozen=True)
class Tick:
    position: float
    label: str


@dataclass(frozen=True)
class RtpChart:
    width: int
    height: int
    band: str  # polygon points of the expected band
    observed: str  # polyline points of the cumulative observed RTP
    markers: list[tuple[float, float, str]]  # x, y, tooltip
    theoretical_y: float | None
    y_ticks: list[Tick]
    x_ticks: list[Tick]
    plot: tuple[float, float, float, float]  # left, top, right, bottom
    outside: int  # points whose observed RTP is outside the band


def _nice_step(span: float) -> float:
    for step in (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25, 0.5, 1.0):
        if span / step <= 6:
            return step
    return 2.0


def rtp_chart(points: list[SeriesPoint], theoretical: float | None, *, hourly: bool) -> RtpChart | None:
    """Geometry for the cumulative observed RTP with its band; None without a point to draw."""
    drawn = [p for p in points if p.observed is not None]
    if not drawn:
        return None
    values = [p.observed for p in drawn]
    values += [v for p in drawn for v in (p.low, p.high) if v is not None]
    if theoretical is not None:
        values.append(theoretical)
    low, high = min(values), max(values)
    pad = max((high - low) * 0.08, 0.002)
    low, high = low - pad, high + pad
    step = _nice_step(high - low)
    low, high = (low // step) * step, (high // step + 1) * step
    left, top, right, bottom = LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM

    def x(index: int) -> float:
        return left + (right - left) * (index / (len(drawn) - 1) if len(drawn) > 1 else 0.5)

    def y(value: float) -> float:
        return bottom - (bottom - top) * (value - low) / (high - low)

    banded = [(i, p) for i, p in enumerate(drawn) if p.low is not None and p.high is not None]
    if len(banded) == 1:
        # One point has no width: its band spans the plot, so it is still seen.
        _i, only = banded[0]
        band_points = [(left, y(only.high)), (right, y(only.high)), (right, y(only.low)), (left, y(only.low))]
    else:
        band_points = [(x(i), y(p.high)) for i, p in banded] + [(x(i), y(p.low)) for i, p in reversed(banded)]
    y_ticks = []
    value = low
    while value <= high + step / 2:
        y_ticks.append(Tick(round(y(value), 1), f"{value * 100:.{2 if step < 0.01 else 1}f} %"))
        value += step
    every = max(1, len(drawn) // 6)
    fmt = "%d %b %H:00" if hourly else "%d %b"
    x_ticks = [Tick(round(x(i), 1), p.at.strftime(fmt)) for i, p in enumerate(drawn) if i % every == 0]
    markers = [(round(x(i), 1), round(y(p.observed), 1),
                f"{p.at.strftime(fmt)}: {p.observed * 100:.2f} % so far ({p.rounds} rounds in this "
                f"{'hour' if hourly else 'day'})") for i, p in enumerate(drawn)]
    outside = sum(1 for p in drawn if p.low is not None and not p.low <= p.observed <= p.high)
    return RtpChart(
        width=WIDTH, height=HEIGHT,
        band=" ".join(f"{px:.1f},{py:.1f}" for px, py in band_points),
        observed=" ".join(f"{px},{py}" for px, py, _ in markers),
        markers=markers, theoretical_y=round(y(theoretical), 1) if theoretical is not None else None,
        y_ticks=y_ticks, x_ticks=x_ticks, plot=(left, top, right, bottom), outside=outside,
    )
