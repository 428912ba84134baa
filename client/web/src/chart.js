// Line charts of training curves on a canvas, as TensorBoard's scalars:
// axis titles, round ticks (whole epochs on x), a log scale, smoothing
// (TensorBoard's debiased exponential moving average), a marker at the best
// epoch, a second y axis on the right (the learning rate), a read-out of
// every series at the epoch under the pointer, zooming by dragging across
// a stretch, epochs or wall time on x, and a run that diverged
// (values that are not finite numbers) said in words instead of a bare or
// empty plot.

const escape = (v) => String(v).replace(/[&<>"']/g,
  (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

export const palette = ["#2f6fdd", "#e67e22", "#1f8a4c", "#8e44ad", "#c0392b", "#16a085"];

// Round tick values covering [min, max]: steps of 1, 2 or 5 × 10^k.
export function niceTicks(min, max, count = 5) {
  if (!(max > min)) return [min];
  const rough = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough);
  const ticks = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) {
    ticks.push(Number(v.toPrecision(12)));
  }
  return ticks;
}

// Whole-epoch ticks on x (1..xMax).
function epochTicks(xMax, count) {
  if (xMax <= 1) return [1];
  return niceTicks(1, xMax, count).filter((v) => Number.isInteger(v) && v >= 1);
}

// TensorBoard's smoothing: an exponential moving average whose first
// values are debiased (weight 0: the points as they are).
export function smooth(points, weight) {
  if (!(weight > 0)) return points;
  let last = 0, count = 0;
  return points.map(([x, y]) => {
    if (!Number.isFinite(y)) return [x, y];
    last = last * weight + (1 - weight) * y;
    count++;
    return [x, last / (1 - weight ** count)];
  });
}

function label(v) {
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a >= 1e4 || a < 1e-3) return v.toExponential(0);
  return String(Number(v.toPrecision(4)));
}

// A scale for one y axis over `values` (linear, or log10 when `log` and
// the values are positive).
function scale(values, log, top, bottom) {
  const finite = values.filter((v) => Number.isFinite(v) && (!log || v > 0));
  if (finite.length === 0) return null;
  let lo = Math.min(...finite), hi = Math.max(...finite);
  if (log) {
    lo = Math.floor(Math.log10(lo) * 4) / 4;
    hi = Math.ceil(Math.log10(hi) * 4) / 4;
    if (hi === lo) { hi += 0.5; lo -= 0.5; }
    const at = (v) => bottom - ((bottom - top) * (Math.log10(v) - lo)) / (hi - lo);
    const ticks = [];
    for (let p = Math.ceil(lo); p <= Math.floor(hi); p++) ticks.push(10 ** p);
    if (ticks.length < 2) {
      ticks.length = 0;
      for (const t of niceTicks(10 ** lo, 10 ** hi, 4)) if (t > 0) ticks.push(t);
    }
    return { at, ticks, valid: (v) => Number.isFinite(v) && v > 0 };
  }
  if (hi === lo) { hi += Math.abs(hi) * 0.1 || 1; lo -= Math.abs(lo) * 0.1 || 1; }
  const ticks = niceTicks(lo, hi, 4);
  lo = Math.min(lo, ticks[0]);
  hi = Math.max(hi, ticks[ticks.length - 1]);
  const at = (v) => bottom - ((bottom - top) * (v - lo)) / (hi - lo);
  return { at, ticks, valid: Number.isFinite };
}

// The first epoch at which a series holds a value that is not finite.
export function divergedAt(series) {
  let first;
  for (const s of series) {
    if (s.axis === "right") continue;
    for (const [x, y] of s.points) {
      if (!Number.isFinite(y) && (first === undefined || x < first)) first = x;
    }
  }
  return first;
}

// series: [{ name, points: [[epoch, value], ...], color, dashed,
//   axis: "left" (default) or "right" }]
// options: { yTitle, rightTitle, log, smoothing (0..0.99), best (an epoch),
//   empty (the text when there is nothing to draw), note (a warning drawn
//   in red: a run that diverged) }. The canvas keeps data-best and
//   data-note (what the chart says, for tests and assistive tools).
// Returns what hover() needs.
export function drawChart(canvas, series, options = {}) {
  const ratio = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  canvas.width = w * ratio;
  canvas.height = h * ratio;
  const g = canvas.getContext("2d");
  g.scale(ratio, ratio);
  g.clearRect(0, 0, w, h);
  g.font = "11px system-ui";
  // A zoomed chart (options.xRange: [from, to] in x's units) draws and
  // scales only the points inside it.
  const range = options.xRange;
  const inRange = (points) => (range ? points.filter(([x]) => x >= range[0] && x <= range[1]) : points);
  const shown = series.map((s, i) => ({
    ...s, color: s.color ?? palette[i % palette.length],
    points: inRange(s.points),
    drawn: inRange(s.axis === "right" ? s.points : smooth(s.points, options.smoothing ?? 0)),
  }));
  const epochs = (options.xTitle ?? "epoch") === "epoch";
  canvas.dataset.xRange = range ? `${range[0]}-${range[1]}` : "";
  canvas.dataset.xTitle = options.xTitle ?? "epoch";
  const diverged = divergedAt(series);
  const left = shown.filter((s) => s.axis !== "right");
  const right = shown.filter((s) => s.axis === "right");
  const hasRight = right.some((s) => s.points.length > 0);
  const pad = { l: 58, r: hasRight ? 58 : 14, t: 12, b: 38 };
  const leftScale = scale(left.flatMap((s) => s.drawn.map(([, y]) => y)), options.log, pad.t, h - pad.b);
  const message = (text, color = "#6b7385") => {
    g.fillStyle = color;
    g.font = "13px system-ui";
    g.fillText(text, pad.l, pad.t + 16);
    g.font = "11px system-ui";
  };
  canvas.dataset.best = options.best ?? "";
  canvas.dataset.note = options.note ?? (diverged !== undefined ? `diverged at epoch ${diverged}` : "");
  if (!leftScale) {
    if (options.note) message(options.note, "#c0392b");
    else if (diverged !== undefined) {
      message(`the run diverged at epoch ${diverged}: its loss is not a finite number`, "#c0392b");
    } else message(options.empty ?? "no epochs yet");
    return { series: shown, X: null };
  }
  const xs = shown.flatMap((s) => s.points.map(([x]) => x));
  const xMin = range ? range[0] : epochs ? 1 : Math.min(0, ...xs);
  const xMax = range ? range[1] : Math.max(epochs ? 1 : xMin + 1e-9, ...xs);
  const span = epochs ? Math.max(1, xMax - xMin) : Math.max(1e-9, xMax - xMin);
  const X = (x) => pad.l + ((w - pad.l - pad.r) * (x - xMin)) / span;
  // Grid and left ticks.
  g.strokeStyle = "#e4e7ee";
  g.fillStyle = "#6b7385";
  g.textAlign = "right";
  for (const t of leftScale.ticks) {
    const y = leftScale.at(t);
    g.beginPath(); g.moveTo(pad.l, y); g.lineTo(w - pad.r, y); g.stroke();
    g.fillText(label(t), pad.l - 6, y + 4);
  }
  g.textAlign = "center";
  const tickCount = Math.max(2, Math.floor((w - pad.l - pad.r) / 60));
  const xTicks = epochs ? epochTicks(xMax, tickCount).filter((t) => t >= xMin) : niceTicks(xMin, xMax, tickCount);
  for (const t of xTicks) g.fillText(label(t), X(t), h - pad.b + 14);
  g.fillText(options.xTitle ?? "epoch", pad.l + (w - pad.l - pad.r) / 2, h - 6);
  // Axis titles, rotated.
  const vertical = (text, x) => {
    g.save();
    g.translate(x, pad.t + (h - pad.t - pad.b) / 2);
    g.rotate(-Math.PI / 2);
    g.fillText(text, 0, 0);
    g.restore();
  };
  vertical(options.yTitle ?? "", 12);
  let rightScale = null;
  if (hasRight) {
    rightScale = scale(right.flatMap((s) => s.points.map(([, y]) => y)), false, pad.t, h - pad.b);
    if (rightScale) {
      g.textAlign = "left";
      for (const t of rightScale.ticks) g.fillText(label(t), w - pad.r + 6, rightScale.at(t) + 4);
      g.textAlign = "center";
      vertical(options.rightTitle ?? "", w - 8);
    }
  }
  g.textAlign = "left";
  // The best epoch.
  if (options.best && epochs && options.best >= xMin && options.best <= xMax) {
    const x = X(options.best);
    g.strokeStyle = "#1f8a4c";
    g.setLineDash([2, 3]);
    g.beginPath(); g.moveTo(x, pad.t); g.lineTo(x, h - pad.b); g.stroke();
    g.setLineDash([]);
    g.fillStyle = "#1f8a4c";
    g.fillText(`best ${options.best}`, Math.min(x + 4, w - pad.r - 50), pad.t + 10);
  }
  // The curves.
  for (const s of shown) {
    const sc = s.axis === "right" ? rightScale : leftScale;
    if (!sc) continue;
    g.strokeStyle = s.color;
    g.setLineDash(s.dashed ? [5, 4] : s.axis === "right" ? [1, 3] : []);
    g.lineWidth = 1.8;
    g.beginPath();
    let open = false;
    for (const [x, y] of s.drawn) {
      if (!sc.valid(y)) { open = false; continue; }
      if (open) g.lineTo(X(x), sc.at(y)); else g.moveTo(X(x), sc.at(y));
      open = true;
    }
    g.stroke();
  }
  g.setLineDash([]);
  g.lineWidth = 1;
  if (options.note || diverged !== undefined) {
    g.fillStyle = "#c0392b";
    g.fillText(options.note ?? `diverged at epoch ${diverged} (not a finite number)`, pad.l + 6, pad.t + 12);
  }
  return { series: shown, X, xMin, xMax, span, pad, w, xTitle: options.xTitle ?? "epoch" };
}

// Drag across a chart to zoom into that stretch of x; a double click (or
// `reset`) zooms out. `zoomed(range)` gets [from, to] in x's units, or
// null; `current()` gives drawChart's latest answer.
export function zoom(canvas, current, zoomed) {
  let from = null;
  const xAt = (e) => {
    const layout = current();
    if (!layout?.X) return null;
    const px = e.clientX - canvas.getBoundingClientRect().left;
    const { pad, w, xMin, span } = layout;
    return xMin + ((px - pad.l) * span) / Math.max(1, w - pad.l - pad.r);
  };
  canvas.onmousedown = (e) => { from = xAt(e); };
  canvas.onmouseup = (e) => {
    const to = xAt(e);
    if (from !== null && to !== null && Math.abs(to - from) > 1e-9) {
      const [a, b] = [Math.min(from, to), Math.max(from, to)];
      const layout = current();
      // Whole epochs on an epoch axis, at least two of them.
      if (layout.xTitle === "epoch") zoomed([Math.floor(a), Math.max(Math.floor(a) + 1, Math.ceil(b))]);
      else zoomed([a, b]);
    }
    from = null;
  };
  canvas.ondblclick = () => zoomed(null);
}

// Shows, in `tip`, every series' value at the epoch nearest the pointer.
// `current()` gives drawChart's latest answer.
export function hover(canvas, tip, current) {
  canvas.onmousemove = (e) => {
    const layout = current();
    if (!layout?.X) return;
    const rect = canvas.getBoundingClientRect();
    const px = e.clientX - rect.left;
    const { pad, w, xMin, span } = layout;
    // The x of the point nearest the pointer (an epoch, or a wall time).
    const wanted = xMin + ((px - pad.l) * span) / Math.max(1, w - pad.l - pad.r);
    let at = null;
    for (const s of layout.series) {
      for (const [x] of s.points) if (at === null || Math.abs(x - wanted) < Math.abs(at - wanted)) at = x;
    }
    const lines = layout.series.map((s) => {
      const p = s.points.find(([x]) => x === at);
      if (!p) return null;
      const v = Number.isFinite(p[1]) ? Number(p[1].toPrecision(5)) : "not a number";
      return `<div><span style="color:${s.color}">■</span> ${escape(s.name)}: ${v}</div>`;
    }).filter(Boolean);
    if (lines.length === 0) { tip.hidden = true; return; }
    const where = layout.xTitle === "epoch" ? `epoch ${at}` : `${escape(layout.xTitle)} ${Number(at.toPrecision(4))}`;
    tip.innerHTML = `<b>${where}</b>${lines.join("")}`;
    tip.hidden = false;
    tip.style.left = `${Math.min(px + 12, rect.width - 190)}px`;
    tip.style.top = "8px";
  };
  canvas.onmouseleave = () => { tip.hidden = true; };
}
