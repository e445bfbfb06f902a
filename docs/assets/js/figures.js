/* Draw the book's measured figures.
 *
 * Each figure is a <div class="book-figure"> holding a JSON payload written at build
 * time by scripts/book/render.py: {id, title, devices: [{slug, label, caption, plot,
 * stale?}]} (stale: why the data is older than the code, also at the caption's end).
 * Every trace names a colour role in meta.role; the palette for that role depends on
 * the light or dark scheme Material is showing, and the figure is redrawn when the
 * reader toggles it. With data from more than one GPU, buttons switch the device.
 *
 * After Plotly draws, fitPlot() measures what it drew and redraws where text would not
 * be legible (tests/site/test_figure_legibility.py checks the result, every figure,
 * light and dark, desktop and 390 px): a bar's label goes inside the bar only where it
 * fits, in whichever of the two text colours stands out more against that bar, and
 * otherwise beside the end of its error bar in the page's text colour (never shrunk,
 * never on the whisker); an axis title wider than the figure is broken into lines; a
 * y tick label that collides with an x tick label at the corner is moved aside. When
 * the last pass is done the figure carries data-fitted="true".
 */
(function () {
  "use strict";

  const PALETTES = {
    light: {
      text: "#1f2430", grid: "rgba(0,0,0,0.10)", line: "rgba(0,0,0,0.35)", barText: "#ffffff",
      roles: {
        triton: "#3949ab", torch: "#e65100", compile: "#2e7d32", cublas: "#6a1b9a",
        ceiling: "#424242", "ceiling-2": "#8d6e63", marker: "#9e9e9e", graph: "#2e7d32",
        wrapper: "#3949ab", torch_add: "#e65100",
      },
      series: ["#3949ab", "#e65100", "#2e7d32", "#8e24aa", "#00838f", "#6d4c41"],
    },
    dark: {
      text: "#e2e4ec", grid: "rgba(255,255,255,0.12)", line: "rgba(255,255,255,0.35)", barText: "#15171e",
      roles: {
        triton: "#8c9eff", torch: "#ffab40", compile: "#69f0ae", cublas: "#ea80fc",
        ceiling: "#e0e0e0", "ceiling-2": "#bcaaa4", marker: "#9e9e9e", graph: "#69f0ae",
        wrapper: "#8c9eff", torch_add: "#ffab40",
      },
      series: ["#8c9eff", "#ffab40", "#69f0ae", "#ea80fc", "#4dd0e1", "#bcaaa4"],
    },
  };

  function scheme() {
    const s = document.body && document.body.getAttribute("data-md-color-scheme");
    return s === "slate" ? "dark" : "light";
  }

  function colourFor(role, pal) {
    if (!role) return pal.series[0];
    if (role.startsWith("series-")) {
      const i = parseInt(role.slice(7), 10) || 0;
      return pal.series[i % pal.series.length];
    }
    return pal.roles[role] || pal.series[0];
  }

  // WCAG relative luminance of "#rrggbb" (or "#rgb").
  function luminance(hex) {
    let h = hex.replace("#", "");
    if (h.length === 3) h = h.split("").map(function (c) { return c + c; }).join("");
    const ch = [0, 2, 4].map(function (i) {
      const v = parseInt(h.slice(i, i + 2), 16) / 255;
      return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
  }

  function contrast(a, b) {
    const la = luminance(a), lb = luminance(b);
    return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
  }

  // Of the palette's two text colours (one dark, one light), the one that reads on `fill`.
  function readableOn(fill, pal) {
    if (!/^#[0-9a-f]{3,6}$/i.test(fill || "")) return pal.barText;
    return contrast(pal.barText, fill) >= contrast(pal.text, fill) ? pal.barText : pal.text;
  }

  function themed(plot) {
    const pal = PALETTES[scheme()];
    const data = plot.data.map(function (t) {
      const trace = JSON.parse(JSON.stringify(t));
      const meta = trace.meta || {};
      if (trace.type === "bar") {
        const roles = meta.roles || [];
        trace.marker = Object.assign({}, trace.marker, {
          color: roles.map(function (r) { return colourFor(r, pal); }),
        });
        trace.insidetextfont = {
          color: trace.marker.color.map(function (c) { return readableOn(c, pal); }),
        };
        trace.outsidetextfont = { color: pal.text };
        if (trace.text && trace.orientation === "h") {
          // First pass: every label inside, at full size; fitPlot() moves those that
          // do not fit. (Plotly's "auto" would shrink some; see fitBarLabels.)
          trace.textposition = "inside";
          trace.insidetextanchor = trace.insidetextanchor || "start";  // clear of the whisker
          trace.constraintext = "none";
        }
        if (trace.error_x) trace.error_x = Object.assign({}, trace.error_x, { color: pal.text });
      } else {
        const c = colourFor(meta.role, pal);
        trace.line = Object.assign({ width: meta.role === "marker" ? 1 : 2 }, trace.line, { color: c });
        trace.marker = Object.assign({ size: 6 }, trace.marker, { color: c });
        if (trace.mode && trace.mode.indexOf("text") >= 0) trace.textfont = { color: pal.text };
        // Error bars span the 20th to 80th percentile of the repetitions.
        if (trace.error_y) trace.error_y = Object.assign({}, trace.error_y, { color: c });
      }
      return trace;
    });
    const layout = JSON.parse(JSON.stringify(plot.layout || {}));
    Object.assign(layout, {
      paper_bgcolor: "rgba(0,0,0,0)",
      plot_bgcolor: "rgba(0,0,0,0)",
      font: { color: pal.text, size: 13 },
      margin: { l: 64, r: 16, t: 16, b: 16 },
      // Anchored to the bottom of the whole figure (not the plot area), so the legend
      // takes its own room below the x-axis title however many rows it wraps into.
      legend: {
        orientation: "h", x: 0, y: 0, xref: "container", yref: "container", yanchor: "bottom",
        bgcolor: "rgba(0,0,0,0)",
      },
      hoverlabel: { namelength: -1 },
      height: layout.height || 420,  // a figure with a long legend asks for more
    });
    ["xaxis", "yaxis"].forEach(function (ax) {
      layout[ax] = Object.assign({}, layout[ax], {
        gridcolor: pal.grid, linecolor: pal.line, zerolinecolor: pal.grid,
        automargin: true,
      });
    });
    (layout.annotations || []).forEach(function (a) {
      a.font = Object.assign({}, a.font, { color: pal.text });
      a.arrowcolor = pal.text;
    });
    return { data: data, layout: layout };
  }

  // ---- fitting: measure what Plotly drew, redraw where text would not be legible ----

  const PAD = 4;  // px between a label and the edge of its bar or the end of its whisker
  const FIT_PASSES = 4;

  function fitPasses(el, gd, fig, token, pass) {
    if (token !== el.__book.token) return null;  // a newer draw took over
    const changed = pass < FIT_PASSES && fitPlot(gd, fig);
    if (!changed) {
      el.setAttribute("data-fitted", "true");
      return null;
    }
    return Plotly.react(gd, fig.data, fig.layout, CONFIG).then(function () {
      return fitPasses(el, gd, fig, token, pass + 1);
    });
  }

  function fitPlot(gd, fig) {
    let changed = fitBarLabels(gd, fig);
    changed = wrapAxisTitles(gd, fig) || changed;
    changed = clearCornerTicks(gd, fig) || changed;
    return changed;
  }

  // Horizontal bars: a label stays inside its bar if it fits left of the whisker's low
  // end; otherwise it becomes an annotation just past the whisker's high end, and the
  // axis grows, if need be, to hold it.
  function fitBarLabels(gd, fig) {
    const pal = PALETTES[scheme()];
    let changed = false;
    const outside = [];
    gd.querySelectorAll(".barlayer .trace").forEach(function (g) {
      const cd = g.__data__;
      if (!cd || !cd[0] || !cd[0].trace) return;
      const index = cd[0].trace.index;
      const trace = fig.data[index];
      if (!trace || trace.type !== "bar" || trace.orientation !== "h" || !trace.text) return;
      if (!Array.isArray(trace.textposition)) trace.textposition = trace.x.map(function () { return "inside"; });
      g.querySelectorAll(".point").forEach(function (pt) {
        const j = pt.__data__ && pt.__data__.i;
        const bar = pt.querySelector("path");
        const text = pt.querySelector("text");
        if (j === undefined || !bar || !text || trace.textposition[j] !== "inside") return;
        const b = bar.getBoundingClientRect();
        const t = text.getBoundingClientRect();
        const value = trace.x[j];
        const minus = trace.error_x && trace.error_x.arrayminus ? trace.error_x.arrayminus[j] : 0;
        const room = value > 0 ? b.width * (value - minus) / value : 0;
        if (t.width + 2 * PAD <= room && t.height + 2 <= b.height) return;
        trace.textposition[j] = "none";
        changed = true;
        const plus = trace.error_x && trace.error_x.array ? trace.error_x.array[j] : 0;
        outside.push({ trace: trace, j: j, x: value + plus, y: trace.y[j], box: b, width: t.width });
      });
    });
    if (!outside.length) return changed;
    // An annotation sits on its category's centre; shift it to its own bar's (grouped bars).
    const centres = {};
    gd.querySelectorAll(".barlayer .point path").forEach(function (p) {
      const pt = p.parentNode.__data__;
      const cd = p.closest(".trace").__data__;
      if (!pt || !cd || !cd[0] || !cd[0].trace) return;
      const y = cd[0].trace.y[pt.i];
      const r = p.getBoundingClientRect();
      (centres[y] = centres[y] || []).push((r.top + r.bottom) / 2);
    });
    const layout = fig.layout;
    layout.annotations = layout.annotations || [];
    // Plotly writes the range it chose back into gd.layout; the plot area's width is
    // the drag layer's.
    const xa = gd.layout.xaxis || {};
    const area = gd.querySelector(".nsewdrag");
    const L = area ? area.getBoundingClientRect().width : 0;
    let rangeMax = xa.range ? xa.range[1] : 0;
    outside.forEach(function (o) {
      const cs = centres[o.y] || [];
      const centre = cs.reduce(function (a, v) { return a + v; }, 0) / (cs.length || 1);
      layout.annotations.push({
        x: o.x, y: o.y, xref: "x", yref: "y", xanchor: "left", xshift: PAD,
        yshift: centre - (o.box.top + o.box.bottom) / 2,
        text: String(o.trace.text[o.j]), showarrow: false,
        font: { color: pal.text, size: 13 },
        meta: "bar-label",
      });
      // Room for the label: x·L/R + PAD + width <= L  =>  R >= x·L / (L - PAD - width).
      if (xa.range && L - 2 * PAD - o.width > 0) rangeMax = Math.max(rangeMax, o.x * L / (L - 2 * PAD - o.width));
    });
    if (xa.range && xa.type !== "log" && rangeMax > xa.range[1] * 1.001) {
      layout.xaxis = Object.assign({}, layout.xaxis, { range: [xa.range[0], rangeMax], autorange: false });
    }
    return true;
  }

  // Break an axis title that is wider (x) or taller (y) than the figure into lines.
  function wrapAxisTitles(gd, fig) {
    const svg = gd.querySelector("svg.main-svg").getBoundingClientRect();
    let changed = false;
    // [axis, its title, the title's length along the axis, room each side of its centre]
    function sides(r, horizontal) {
      const c = horizontal ? (r.left + r.right) / 2 : (r.top + r.bottom) / 2;
      return horizontal ? Math.min(c - svg.left, svg.right - c) : Math.min(c - svg.top, svg.bottom - c);
    }
    [["xaxis", ".g-xtitle text", true], ["yaxis", ".g-ytitle text", false]]
      .forEach(function (a) {
        const el = gd.querySelector(a[1]);
        const ax = fig.layout[a[0]];
        if (!el || !ax || !ax.title || !ax.title.text) return;
        const r = el.getBoundingClientRect();
        const size = a[2] ? r.width : r.height;
        // Centred on the plot area, the title may have less room on one side.
        const room = 2 * sides(r, a[2]) - 2 * PAD;
        if (size <= room) return;
        const lines = ax.title.text.split("<br>");
        const longest = Math.max.apply(null, lines.map(function (l) { return l.length; }));
        // As many lines as it takes, and lines of even length: no lone last word.
        const most = Math.max(8, Math.floor(longest * room / size));
        const perLine = Math.ceil(longest / Math.ceil(longest / most));
        const wrapped = [];
        lines.forEach(function (l) {
          let cur = "";
          l.split(" ").forEach(function (w) {
            if (cur && (cur + " " + w).length > perLine) { wrapped.push(cur); cur = w; }
            else cur = cur ? cur + " " + w : w;
          });
          wrapped.push(cur);
        });
        const text = wrapped.join("<br>");
        if (text !== ax.title.text) {
          fig.layout[a[0]] = Object.assign({}, ax, { title: Object.assign({}, ax.title, { text: text }) });
          changed = true;
        }
      });
    return changed;
  }

  // The y axis's lowest tick label and the x axis's first one can meet at the corner
  // (say "0" and "10²"): move the y labels left by the overlap.
  function clearCornerTicks(gd, fig) {
    const xs = Array.from(gd.querySelectorAll(".xtick text")).map(function (e) { return e.getBoundingClientRect(); });
    let shift = 0;
    gd.querySelectorAll(".ytick text").forEach(function (e) {
      const r = e.getBoundingClientRect();
      xs.forEach(function (x) {
        if (r.width && x.width && r.left < x.right && x.left < r.right && r.top < x.bottom && x.top < r.bottom) {
          shift = Math.max(shift, r.right - x.left + 2);
        }
      });
    });
    if (!shift) return false;
    const ax = fig.layout.yaxis || {};
    fig.layout.yaxis = Object.assign({}, ax, { ticklabelstandoff: (ax.ticklabelstandoff || 0) + Math.ceil(shift) });
    return true;
  }

  const CONFIG = {
    responsive: true,
    displaylogo: false,
    modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d"],
  };

  function draw(el) {
    const state = el.__book;
    const entry = state.payload.devices[state.index];
    const fig = themed(entry.plot);
    const plotDiv = el.querySelector(".book-figure__plot");
    const token = (state.token = (state.token || 0) + 1);
    el.setAttribute("data-fitted", "false");
    Plotly.react(plotDiv, fig.data, fig.layout, CONFIG).then(function () {
      return fitPasses(el, plotDiv, fig, token, 0);
    });
    const caption = el.querySelector(".book-figure__caption");
    // Data measured with code that has changed since: the caption says why on a line of
    // its own, set off (render.py's caption_html draws the first device the same way).
    const cut = entry.stale ? entry.caption.indexOf(" · † ") : -1;
    caption.textContent = cut >= 0 ? entry.caption.slice(0, cut) : entry.caption;
    caption.classList.toggle("book-figure__caption--stale", Boolean(entry.stale));
    if (entry.stale) {
      const why = document.createElement("span");
      why.className = "book-figure__stale";
      why.textContent = "† " + entry.stale;
      caption.appendChild(why);
    }
    el.setAttribute("data-device", entry.slug);
    el.querySelectorAll(".book-figure__devices button").forEach(function (b, i) {
      b.setAttribute("aria-pressed", i === state.index ? "true" : "false");
    });
  }

  function setUp(el) {
    if (el.__book) return;
    const script = el.querySelector("script.book-figure__data");
    const payload = JSON.parse(script.textContent);
    el.__book = { payload: payload, index: 0 };
    const bar = el.querySelector(".book-figure__devices");
    const label = document.createElement("span");
    label.className = "book-figure__devices-label";
    label.textContent = payload.devices.length > 1 ? "Measured on:" : "Measured on " + payload.devices[0].label;
    bar.appendChild(label);
    if (payload.devices.length > 1) {
      payload.devices.forEach(function (d, i) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "book-figure__device md-button";
        b.textContent = d.label;
        b.setAttribute("data-slug", d.slug);
        b.addEventListener("click", function () {
          el.__book.index = i;
          draw(el);
        });
        bar.appendChild(b);
      });
    }
    draw(el);
  }

  function drawAll() {
    if (typeof Plotly === "undefined") {
      console.error("book figures: Plotly did not load");
      return;
    }
    document.querySelectorAll(".book-figure").forEach(setUp);
  }

  function redrawAll() {
    document.querySelectorAll(".book-figure").forEach(function (el) {
      if (el.__book) draw(el);
    });
  }

  function start() {
    drawAll();
    // A new width changes what fits: draw again (from the data) once resizing settles.
    let resizing = null;
    window.addEventListener("resize", function () {
      clearTimeout(resizing);
      resizing = setTimeout(redrawAll, 250);
    });
    new MutationObserver(redrawAll).observe(document.body, {
      attributes: true, attributeFilter: ["data-md-color-scheme"],
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
