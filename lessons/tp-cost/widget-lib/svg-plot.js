// A small, accessible SVG line chart with a log₂ x axis (GPU counts 1, 2, 4, …): labelled axes
// and ticks, lines with point markers, loose points, vertical markers, and a title and
// description for screen readers. Drawn at the pixel width it is given, so its text stays
// readable on a phone; colours come from CSS classes (the widget's stylesheet).

const SVG = "http://www.w3.org/2000/svg";

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** Round "nice" tick values from 0 to at least max: 0, step, 2·step, … with step 1, 2 or 5 × 10^k. */
export function niceTicks(max, count = 5) {
  const raw = Math.max(max, 1e-9) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((v) => v >= raw);
  const ticks = [];
  for (let v = 0; v <= max + step * 1e-9; v += step) ticks.push(v);
  if (ticks[ticks.length - 1] < max) ticks.push(ticks[ticks.length - 1] + step);
  return ticks;
}

/**
 * logPlot({width, height, title, desc, xLabel, yLabel, xs, yMax, formatX, formatY, lines,
 * points, vlines, testid}) → <svg>.
 * - xs: the x values (powers of two) with ticks; yMax: the top of the y axis (ticks are nice);
 * - lines: [{points: [{x, y}], cls, dashed, testid}]; points: [{x, y, cls, label, testid}];
 * - vlines: [{x, label, cls, testid}] drawn between ticks where x is not one of xs.
 */
export function logPlot(o) {
  const m = { left: 48, right: 12, top: 14, bottom: 40 };
  const W = o.width, H = o.height;
  const x0 = Math.log2(o.xs[0]), x1 = Math.log2(o.xs[o.xs.length - 1]);
  const yTicks = niceTicks(o.yMax);
  const yTop = yTicks[yTicks.length - 1];
  const X = (x) => m.left + ((Math.log2(x) - x0) / (x1 - x0)) * (W - m.left - m.right);
  const Y = (y) => H - m.bottom - (Math.min(Math.max(y, 0), yTop) / yTop) * (H - m.top - m.bottom);
  const ids = { title: `${o.testid}-title`, desc: `${o.testid}-desc` };

  const grid = yTicks.map((v) => s("g", { class: "plot-tick" },
    s("line", { x1: m.left, x2: W - m.right, y1: Y(v), y2: Y(v), class: "plot-grid" }),
    s("text", { x: m.left - 6, y: Y(v), "text-anchor": "end", "dominant-baseline": "middle" }, o.formatY(v))));
  const xTicks = o.xs.map((x) => s("g", { class: "plot-tick" },
    s("line", { x1: X(x), x2: X(x), y1: H - m.bottom, y2: H - m.bottom + 4, class: "plot-axis" }),
    s("text", { x: X(x), y: H - m.bottom + 16, "text-anchor": "middle" }, o.formatX(x))));
  const vlines = (o.vlines ?? []).map((v) => s("g", { class: `plot-vline ${v.cls ?? ""}`, "data-testid": v.testid },
    s("line", { x1: X(v.x), x2: X(v.x), y1: m.top, y2: H - m.bottom }),
    s("text", { x: X(v.x) + 4, y: m.top + 10, "text-anchor": X(v.x) > W * 0.7 ? "end" : "start",
      dx: X(v.x) > W * 0.7 ? -8 : 0 }, v.label)));
  const lines = (o.lines ?? []).filter((l) => l.points.length).map((l) => s("g", { class: `plot-line ${l.cls ?? ""}`, "data-testid": l.testid },
    s("polyline", { points: l.points.map((p) => `${X(p.x).toFixed(1)},${Y(p.y).toFixed(1)}`).join(" "),
      "stroke-dasharray": l.dashed ? "6 4" : null }),
    l.points.map((p) => s("circle", { cx: X(p.x), cy: Y(p.y), r: l.dashed ? 3 : 2.5 }))));
  const points = (o.points ?? []).map((p) => s("g", { class: `plot-point ${p.cls ?? ""}`, "data-testid": p.testid },
    s("rect", { x: X(p.x) - 4.5, y: Y(p.y) - 4.5, width: 9, height: 9, transform: `rotate(45 ${X(p.x)} ${Y(p.y)})` }),
    p.label ? s("text", { x: X(p.x) + 8, y: Y(p.y) + 4 }, p.label) : null));

  return s("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", class: "plot",
    "aria-labelledby": ids.title, "aria-describedby": ids.desc, "data-testid": o.testid },
    s("title", { id: ids.title }, o.title),
    s("desc", { id: ids.desc }, o.desc),
    grid, vlines,
    s("line", { x1: m.left, x2: W - m.right, y1: H - m.bottom, y2: H - m.bottom, class: "plot-axis" }),
    s("line", { x1: m.left, x2: m.left, y1: m.top, y2: H - m.bottom, class: "plot-axis" }),
    xTicks, lines, points,
    s("text", { x: m.left + (W - m.left - m.right) / 2, y: H - 6, "text-anchor": "middle", class: "plot-label" }, o.xLabel),
    s("text", { x: 12, y: m.top + (H - m.top - m.bottom) / 2, "text-anchor": "middle", class: "plot-label",
      transform: `rotate(-90 12 ${m.top + (H - m.top - m.bottom) / 2})` }, o.yLabel));
}
