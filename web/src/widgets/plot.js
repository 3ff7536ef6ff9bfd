// An accessible SVG plot of lines and markers: labelled axes and ticks, a title and a
// description a screen reader reads (the values, in the page's language), focusable so a
// keyboard reaches it. It is drawn at the pixel width it is given (widthOf), so its text stays
// readable on a phone; its colours are CSS (widgets.css: the card's ink, a series' GPU colour).

const SVG = "http://www.w3.org/2000/svg";

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined && value !== false) el.setAttribute(key, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined && child !== false) el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** Round "nice" ticks from `min` to at least `max`: steps of 1, 2 or 5 × 10^k. */
export function niceTicks(max, count = 5, min = 0) {
  const raw = Math.max(max - min, 1e-9) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((v) => v >= raw);
  const ticks = [];
  for (let v = Math.floor(min / step) * step; v <= max + step * 1e-9; v += step) ticks.push(+v.toPrecision(12));
  if (ticks[ticks.length - 1] < max) ticks.push(ticks[ticks.length - 1] + step);
  return ticks;
}

/** The width to draw at: `box`'s, between 280 and 640 px (560 before it is laid out). */
export function widthOf(box) {
  return Math.max(280, Math.min(640, box.clientWidth || 560));
}

/** The height for a plot `width` wide: half its width, between `min` and 280 px (a phone's plot stays tall enough to read). */
export function heightFor(width, min) {
  return Math.round(Math.min(280, Math.max(min, width * 0.5)));
}

/** Calls redraw() when `box` changes width by more than a few pixels (a phone turned, a window resized). */
export function redrawOnResize(box, redraw) {
  if (typeof ResizeObserver !== "function") return;
  let last = widthOf(box);
  new ResizeObserver(() => {
    if (box.clientWidth && Math.abs(widthOf(box) - last) > 8) {
      last = widthOf(box);
      redraw();
    }
  }).observe(box);
}

const MARKERS = {
  circle: (x, y, r) => s("circle", { cx: x, cy: y, r }),
  square: (x, y, r) => s("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r }),
  diamond: (x, y, r) => s("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r, transform: `rotate(45 ${x} ${y})` }),
  cross: (x, y, r) => s("path", { d: `M${x - r},${y - r}L${x + r},${y + r}M${x - r},${y + r}L${x + r},${y - r}` }),
};

/**
 * plot({...}) -> <svg>. Everything it shows:
 * - width, height (pixels), title, desc (for screen readers; by default each series' name and
 *   values), xLabel, yLabel, testid;
 * - x: {ticks, log: true for a log₂ axis, format}; the axis runs from the first tick to the last;
 * - y: {max, min = 0, ticks (default niceTicks), format};
 * - series: [{name, points: [{x, y, label?, testid?}], cls (say "gpu-0"), id (data-series),
 *   testid, line = true, dashed, marker: "circle" | "square" | "diamond" | "cross" | null, r (its size)}];
 * - vlines: [{x, label, cls, testid}], vertical markers (drawn where x need not be a tick).
 */
export function plot(o) {
  const m = { left: 52, right: 14, top: 14, bottom: 42 };
  const W = o.width, H = o.height;
  const xTicks = o.x.ticks;
  const pos = (x) => (o.x.log ? Math.log2(x) : x);
  const [x0, x1] = [pos(xTicks[0]), pos(xTicks[xTicks.length - 1])];
  const yTicks = o.y.ticks ?? niceTicks(o.y.max, 5, o.y.min ?? 0);
  const [yLo, yHi] = [yTicks[0], yTicks[yTicks.length - 1]];
  const X = (x) => m.left + (x1 === x0 ? 0.5 : (pos(x) - x0) / (x1 - x0)) * (W - m.left - m.right);
  const Y = (y) => H - m.bottom - ((Math.min(Math.max(y, yLo), yHi) - yLo) / (yHi - yLo || 1)) * (H - m.top - m.bottom);
  const fx = o.x.format ?? String, fy = o.y.format ?? String;
  const ids = { title: `${o.testid}-title`, desc: `${o.testid}-desc` };
  const desc = o.desc ?? o.series.map((l) => `${l.name}: ${l.points.map((p) => `${fx(p.x)} → ${fy(p.y)}`).join("; ")}`).join(". ");

  const series = o.series.filter((l) => l.points.length).map((l) => {
    const marker = MARKERS[l.marker === undefined ? "circle" : l.marker];
    const r = l.r ?? (l.marker === "circle" || l.marker === undefined ? (l.dashed ? 3 : 2.5) : 4);
    return s("g", { class: `plot-series ${l.cls ?? ""}`, "data-series": l.id, "data-testid": l.testid },
      l.line !== false ? s("polyline", { points: l.points.map((p) => `${X(p.x).toFixed(1)},${Y(p.y).toFixed(1)}`).join(" "),
        "stroke-dasharray": l.dashed ? "6 4" : null }) : null,
      marker ? l.points.map((p) => (p.label || p.testid
        ? s("g", { "data-testid": p.testid }, marker(X(p.x), Y(p.y), r), p.label ? s("text", { x: X(p.x) + 8, y: Y(p.y) + 4 }, p.label) : null)
        : marker(X(p.x), Y(p.y), r))) : null);
  });
  const vlines = (o.vlines ?? []).map((v) => {
    const x = X(v.x), right = x > W * 0.7;
    return s("g", { class: `plot-vline ${v.cls ?? ""}`, "data-testid": v.testid },
      s("line", { x1: x, x2: x, y1: m.top, y2: H - m.bottom }),
      s("text", { x: x + (right ? -4 : 4), y: m.top + 10, "text-anchor": right ? "end" : "start" }, v.label));
  });
  const midY = m.top + (H - m.top - m.bottom) / 2;
  return s("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", class: "tpw-plot", tabindex: 0,
    "aria-labelledby": ids.title, "aria-describedby": ids.desc, "data-testid": o.testid },
    s("title", { id: ids.title }, o.title),
    s("desc", { id: ids.desc }, desc),
    yTicks.map((v) => s("g", { class: "plot-tick" },
      s("line", { x1: m.left, x2: W - m.right, y1: Y(v), y2: Y(v), class: "plot-grid" }),
      s("text", { x: m.left - 6, y: Y(v), "text-anchor": "end", "dominant-baseline": "middle" }, fy(v)))),
    vlines,
    s("line", { x1: m.left, x2: W - m.right, y1: H - m.bottom, y2: H - m.bottom, class: "plot-axis" }),
    s("line", { x1: m.left, x2: m.left, y1: m.top, y2: H - m.bottom, class: "plot-axis" }),
    xTicks.map((x) => s("g", { class: "plot-tick" },
      s("line", { x1: X(x), x2: X(x), y1: H - m.bottom, y2: H - m.bottom + 4, class: "plot-axis" }),
      s("text", { x: X(x), y: H - m.bottom + 16, "text-anchor": "middle" }, fx(x)))),
    series,
    s("text", { x: m.left + (W - m.left - m.right) / 2, y: H - 6, "text-anchor": "middle", class: "plot-label" }, o.xLabel),
    s("text", { x: 13, y: midY, "text-anchor": "middle", class: "plot-label", transform: `rotate(-90 13 ${midY})` }, o.yLabel));
}

/**
 * legend([{name, cls, dashed, marker}]) -> a list keyed like the plot's series (a line's
 * colour and dash, or its marker), for the names the plot itself does not print.
 */
export function legend(series) {
  const ul = document.createElement("ul");
  ul.className = "tpw-legend";
  for (const l of series) {
    const li = document.createElement("li");
    li.className = `tpw-key ${l.dashed ? "is-dashed" : ""} ${l.marker && l.line === false ? `is-${l.marker}` : ""} ${l.cls ?? ""}`;
    li.textContent = l.name;
    ul.append(li);
  }
  return ul;
}
