"""SVG path data for PSS: parse ``d`` strings, exact bounding boxes, affine moves, serialisation.

Points are complex numbers (``x + 1j*y``). Parsing follows the SVG grammar: relative commands
become absolute, ``H``/``V`` become lines, ``S``/``T`` become cubics/quadratics with reflected
control points, and ``Z`` adds a closing line when the pen is away from the subpath start (the
way svgpathtools represents a path, which the released PSS code round-trips every path through).
:func:`to_d` writes the same text svgpathtools' ``Path.d()`` writes (absolute commands, ``M``
only where the path jumps, no ``Z``), so rendered geometry matches the released pipeline.

Bounding boxes are exact (curve and arc extrema), as svgelements' ``Path.bbox()`` computes them,
and include the points of ``M`` commands, as svgelements does.
"""

from __future__ import annotations

import cmath
import functools
import math
import re
from dataclasses import dataclass
from typing import NamedTuple

from svgeval.errors import SvgevalError

_TOKEN = re.compile(
    r"([MmZzLlHhVvCcSsQqTtAa])|([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)|([\s,]+)|(.)"
)
_PARAMS = {"M": 2, "L": 2, "H": 1, "V": 1, "C": 6, "S": 4, "Q": 4, "T": 2, "A": 7, "Z": 0}


class PathSyntaxError(SvgevalError, ValueError):
    """A ``d`` attribute that cannot be parsed."""


class Segment(NamedTuple):
    """One drawing segment. ``kind`` is ``L``, ``Q``, ``C`` or ``A``.

    ``points`` holds start, control points and end (``L``: 2, ``Q``: 3, ``C``: 4); for ``A`` it is
    (start, end) and ``radius`` (complex rx + i*ry), ``rotation`` (degrees) and the flags are set.
    A named tuple rather than a frozen dataclass: PSS makes tens of thousands per pair, and a
    tuple is built several times faster.
    """

    kind: str
    points: tuple[complex, ...]
    radius: complex = 0j
    rotation: float = 0.0
    large_arc: bool = False
    sweep: bool = False

    @property
    def start(self) -> complex:
        return self.points[0]

    @property
    def end(self) -> complex:
        return self.points[-1]


@dataclass(frozen=True)
class ParsedPath:
    """Segments in drawing order plus every point an ``M`` command moved to."""

    segments: tuple[Segment, ...]
    move_points: tuple[complex, ...]


_SIMPLE_TOKEN = re.compile(r"[MmZzLlHhVvCcSsQqTt]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_SEPARATORS = re.compile(r"[\s,]*")


def _tokens(d: str) -> list[str | float]:
    """Commands and numbers of ``d``. Path data without arcs (whose flags need the slow reader
    below) is split by one regular expression, once nothing else is found between tokens."""
    if "a" not in d and "A" not in d:
        pieces = _SIMPLE_TOKEN.findall(d)
        if _SEPARATORS.fullmatch(_SIMPLE_TOKEN.sub("", d)):
            return [piece if piece.isalpha() else float(piece) for piece in pieces]
    return _read_tokens(d)


def _read_tokens(d: str) -> list[str | float]:
    """Commands and numbers of ``d``, one token at a time (arc flags may be run together)."""
    out: list[str | float] = []
    flags_pending = 0
    command = ""
    params_seen = 0
    for match in _TOKEN.finditer(d):
        cmd, number, space, other = match.groups()
        if space:
            continue
        if other:
            raise PathSyntaxError(f"unexpected character {other!r} in path data")
        if cmd:
            out.append(cmd)
            command = cmd.upper()
            params_seen = 0
            continue
        assert number is not None
        # Arc flags are single digits that may be written without separators ("a1 1 0 00 1 1").
        if command == "A" and params_seen % 7 in (3, 4):
            flags_pending = 0
            text = number
            while text and params_seen % 7 in (3, 4) and text[0] in "01":
                out.append(float(text[0]))
                params_seen += 1
                text = text[1:]
                flags_pending += 1
            if not flags_pending:
                raise PathSyntaxError(f"bad arc flag {number!r}")
            if text:
                out.append(float(text))
                params_seen += 1
            continue
        out.append(float(number))
        params_seen += 1
    return out


@functools.lru_cache(maxsize=4096)
def parse_path(d: str) -> ParsedPath:
    """Parse path data into absolute segments; raises :class:`PathSyntaxError` on bad data.

    PSS reads each path several times (validity, bounding box, moving, drawing); the parsed,
    immutable result of the last 4,096 distinct ``d`` strings is kept.
    """
    tokens = _tokens(d)
    segments: list[Segment] = []
    moves: list[complex] = []
    pos = start = 0j
    last_control: complex | None = None
    last_kind = ""
    i = 0
    command = ""
    if tokens and not isinstance(tokens[0], str):
        raise PathSyntaxError("path data must start with a command")
    while i < len(tokens):
        token = tokens[i]
        if isinstance(token, str):
            command = token
            i += 1
            if command in "Zz":
                if pos != start:
                    segments.append(Segment("L", (pos, start)))
                pos = start
                last_kind, last_control = "Z", None
                continue
        elif command in "Zz" or not command:
            raise PathSyntaxError("numbers after Z without a command")
        upper = command.upper()
        n = _PARAMS[upper]
        args = tokens[i : i + n]
        if len(args) < n or any(isinstance(a, str) for a in args):
            raise PathSyntaxError(f"command {command} needs {n} numbers")
        i += n
        vals = [float(a) for a in args]
        rel = command.islower()
        base = pos if rel else 0j
        if upper == "M":
            pos = start = base + complex(vals[0], vals[1])
            moves.append(pos)
            command = "l" if rel else "L"  # implicit lineto after the first pair
            last_kind, last_control = "M", None
            continue
        if upper in "LHV":
            if upper == "L":
                end = base + complex(vals[0], vals[1])
            elif upper == "H":
                end = complex((pos.real if rel else 0.0) + vals[0], pos.imag)
            else:
                end = complex(pos.real, (pos.imag if rel else 0.0) + vals[0])
            segments.append(Segment("L", (pos, end)))
            pos, last_kind, last_control = end, "L", None
        elif upper in "CS":
            if upper == "C":
                c1 = base + complex(vals[0], vals[1])
                c2, end = base + complex(vals[2], vals[3]), base + complex(vals[4], vals[5])
            else:
                c1 = 2 * pos - last_control if last_kind == "C" and last_control is not None else pos
                c2, end = base + complex(vals[0], vals[1]), base + complex(vals[2], vals[3])
            segments.append(Segment("C", (pos, c1, c2, end)))
            pos, last_kind, last_control = end, "C", c2
        elif upper in "QT":
            if upper == "Q":
                c, end = base + complex(vals[0], vals[1]), base + complex(vals[2], vals[3])
            else:
                c = 2 * pos - last_control if last_kind == "Q" and last_control is not None else pos
                end = base + complex(vals[0], vals[1])
            segments.append(Segment("Q", (pos, c, end)))
            pos, last_kind, last_control = end, "Q", c
        else:  # arc
            end = base + complex(vals[5], vals[6])
            segments.append(_arc(pos, vals[0], vals[1], vals[2], vals[3] != 0, vals[4] != 0, end))
            pos, last_kind, last_control = end, "A", None
    return ParsedPath(tuple(segments), tuple(moves))


def _arc(start: complex, rx: float, ry: float, rot: float, large: bool, sweep: bool,
         end: complex) -> Segment:
    """An arc segment with its radius scaled up when too small, as the SVG spec (and
    svgpathtools) require; a zero radius makes a straight line."""
    rx, ry = abs(rx), abs(ry)
    if rx == 0 or ry == 0:
        return Segment("L", (start, end))
    # Same arithmetic as svgpathtools, so that scaled radii agree to the last bit.
    zp1 = (1 / cmath.exp(1j * math.radians(rot))) * (start - end) / 2
    x1p, y1p = zp1.real, zp1.imag
    radius_check = (x1p * x1p) / (rx**2) + (y1p * y1p) / (ry**2)
    if radius_check > 1:
        rx *= math.sqrt(radius_check)
        ry *= math.sqrt(radius_check)
    return Segment("A", (start, end), complex(rx, ry), rot, large, sweep)


def _arc_center(seg: Segment) -> tuple[complex, float, float]:
    """Centre, start angle and sweep (radians, in the ellipse's frame) of an arc segment."""
    rx, ry = seg.radius.real, seg.radius.imag
    phi = math.radians(seg.rotation)
    cos_p, sin_p = math.cos(phi), math.sin(phi)
    dx, dy = (seg.start.real - seg.end.real) / 2, (seg.start.imag - seg.end.imag) / 2
    x1 = cos_p * dx + sin_p * dy
    y1 = -sin_p * dx + cos_p * dy
    num = rx * rx * ry * ry - rx * rx * y1 * y1 - ry * ry * x1 * x1
    den = rx * rx * y1 * y1 + ry * ry * x1 * x1
    coef = math.sqrt(max(0.0, num / den)) if den else 0.0
    if seg.large_arc == seg.sweep:
        coef = -coef
    cx1, cy1 = coef * rx * y1 / ry, -coef * ry * x1 / rx
    mx, my = (seg.start.real + seg.end.real) / 2, (seg.start.imag + seg.end.imag) / 2
    centre = complex(cos_p * cx1 - sin_p * cy1 + mx, sin_p * cx1 + cos_p * cy1 + my)
    theta1 = math.atan2((y1 - cy1) / ry, (x1 - cx1) / rx)
    theta2 = math.atan2((-y1 - cy1) / ry, (-x1 - cx1) / rx)
    delta = theta2 - theta1
    if seg.sweep and delta < 0:
        delta += 2 * math.pi
    elif not seg.sweep and delta > 0:
        delta -= 2 * math.pi
    return centre, theta1, delta


def _arc_extreme_points(seg: Segment) -> list[complex]:
    centre, theta1, delta = _arc_center(seg)
    rx, ry = seg.radius.real, seg.radius.imag
    phi = math.radians(seg.rotation)
    cos_p, sin_p = math.cos(phi), math.sin(phi)
    candidates = [math.atan2(-ry * sin_p, rx * cos_p), math.atan2(ry * cos_p, rx * sin_p)]
    points = []
    for base in candidates:
        for k in range(-2, 3):
            theta = base + k * math.pi
            t = (theta - theta1) / delta if delta else -1.0
            if 0.0 < t < 1.0:
                x = centre.real + rx * cos_p * math.cos(theta) - ry * sin_p * math.sin(theta)
                y = centre.imag + rx * sin_p * math.cos(theta) + ry * cos_p * math.sin(theta)
                points.append(complex(x, y))
    return points


def _bezier_roots(a: float, b: float, c: float) -> list[float]:
    """Roots in (0, 1) of a*t^2 + b*t + c."""
    if abs(a) < 1e-12:
        return [-c / b] if abs(b) > 1e-12 and 0 < -c / b < 1 else []
    disc = b * b - 4 * a * c
    if disc < 0:
        return []
    sq = math.sqrt(disc)
    return [t for t in ((-b + sq) / (2 * a), (-b - sq) / (2 * a)) if 0 < t < 1]


def _curve_extreme_points(seg: Segment) -> list[complex]:
    pts = seg.points
    out = []
    if seg.kind == "C":
        p0, p1, p2, p3 = pts
        for v0, v1, v2, v3 in ((p0.real, p1.real, p2.real, p3.real),
                               (p0.imag, p1.imag, p2.imag, p3.imag)):
            a = 3 * (-v0 + 3 * v1 - 3 * v2 + v3)
            b = 6 * (v0 - 2 * v1 + v2)
            c = 3 * (v1 - v0)
            for t in _bezier_roots(a, b, c):
                mt = 1 - t
                out.append(mt**3 * p0 + 3 * mt * mt * t * p1 + 3 * mt * t * t * p2 + t**3 * p3)
    elif seg.kind == "Q":
        p0, p1, p2 = pts
        for v0, v1, v2 in ((p0.real, p1.real, p2.real), (p0.imag, p1.imag, p2.imag)):
            den = v0 - 2 * v1 + v2
            if abs(den) > 1e-12:
                t = (v0 - v1) / den
                if 0 < t < 1:
                    out.append((1 - t) ** 2 * p0 + 2 * (1 - t) * t * p1 + t * t * p2)
    return out


@dataclass(frozen=True)
class BBox:
    """Axis-aligned box ``(min_x, min_y, max_x, max_y)``."""

    min_x: float
    min_y: float
    max_x: float
    max_y: float

    @property
    def width(self) -> float:
        return self.max_x - self.min_x

    @property
    def height(self) -> float:
        return self.max_y - self.min_y

    @property
    def center(self) -> complex:
        return complex((self.min_x + self.max_x) / 2, (self.min_y + self.max_y) / 2)

    def union(self, other: BBox) -> BBox:
        return BBox(min(self.min_x, other.min_x), min(self.min_y, other.min_y),
                    max(self.max_x, other.max_x), max(self.max_y, other.max_y))


def bbox(path: ParsedPath) -> BBox | None:
    """Exact bounding box of the path, including move-to points; None for an empty path."""
    points: list[complex] = list(path.move_points)
    for seg in path.segments:
        pts = seg.points
        points.append(pts[0])
        points.append(pts[-1])
        if seg.kind == "A":
            points.extend(_arc_extreme_points(seg))
        elif seg.kind != "L":
            points.extend(_curve_extreme_points(seg))
    if not points:
        return None
    xs = [p.real for p in points]
    ys = [p.imag for p in points]
    return BBox(min(xs), min(ys), max(xs), max(ys))


def transform(path: ParsedPath, scale: float, about: complex, shift: complex) -> ParsedPath:
    """Scale every point by ``scale`` about ``about`` and then translate by ``shift``."""
    segments = tuple(
        Segment(s.kind, tuple([(p - about) * scale + about + shift for p in s.points]),
                s.radius * scale, s.rotation, s.large_arc, s.sweep)
        for s in path.segments
    )
    return ParsedPath(segments, tuple((p - about) * scale + about + shift for p in path.move_points))


def read_back(path: ParsedPath) -> ParsedPath:
    """What :func:`parse_path` reads from ``to_d(path)`` (with finite coordinates), without the
    text: the same points, read as ``0j + point`` as the parser does (which makes -0.0 0.0),
    ``M`` points where :func:`to_d` writes them (at jumps), and arcs through :func:`_arc` again
    (which corrects the radius)."""
    segments: list[Segment] = []
    moves: list[complex] = []
    written: complex | None = None  # the end to_d compares the next start with
    pos = 0j
    for seg in path.segments:
        pts = seg.points
        if written != pts[0]:
            pos = 0j + pts[0]
            moves.append(pos)
        end = 0j + pts[-1]
        if seg.kind == "A":
            r = seg.radius
            segments.append(_arc(pos, r.real, r.imag, float(seg.rotation), seg.large_arc,
                                 seg.sweep, end))
        else:
            segments.append(Segment(seg.kind, (pos, *[0j + p for p in pts[1:-1]], end)))
        written, pos = pts[-1], end
    return ParsedPath(tuple(segments), tuple(moves))


def to_d(path: ParsedPath) -> str:
    """Serialise as svgpathtools' ``Path.d()`` does: absolute commands, ``M`` only at jumps.

    Coordinates are written ``x,y`` with Python's shortest round-trip float repr.
    """
    parts: list[str] = []
    pos: complex | None = None
    for seg in path.segments:
        pts = seg.points
        start, end, kind = pts[0], pts[-1], seg.kind
        if pos != start:
            parts.append(f"M {start.real},{start.imag}")
        if kind == "L":
            parts.append(f"L {end.real},{end.imag}")
        elif kind == "C":
            c1, c2 = pts[1], pts[2]
            parts.append(f"C {c1.real},{c1.imag} {c2.real},{c2.imag} {end.real},{end.imag}")
        elif kind == "Q":
            c = pts[1]
            parts.append(f"Q {c.real},{c.imag} {end.real},{end.imag}")
        else:
            r = seg.radius
            parts.append(f"A {r.real},{r.imag} {float(seg.rotation)} {int(seg.large_arc)},"
                         f"{int(seg.sweep)} {end.real},{end.imag}")
        pos = end
    return " ".join(parts)
