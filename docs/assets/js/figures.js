/* Draw the book's measured figures.
 *
 * Each figure is a <div class="book-figure"> holding a JSON payload written at build
 * time by scripts/book/render.py: {id, title, devices: [{slug, label, caption, plot,
 * stale?}], counted?} (stale: why the data is older than the code, also at the caption's
 * end). Every trace names a colour role in meta.role; the palette for that role depends
 * on the light or dark scheme Material is showing, and the figure is redrawn when the
 * reader toggles it. With data from more than one GPU, buttons switch the device; a
 * counted figure (arithmetic on shapes, the same on every GPU) has none.
 *
 * The design, the same for every figure (tests/site/test_figure_design.py checks each
 * rule on every figure, light and dark, desktop and 390 px):
 * - the book's kernel ("ours") in one reserved colour, thickest, drawn on top; every
 *   other line in a colour-blind-safe colour with its own dash and marker symbol;
 * - the height comes from the content: each plot area (each panel of small multiples)
 *   keeps its height however long the legend below it grows;
 * - log axes labelled at powers of ten only, written as powers;
 * - no toolbar on a touch screen; the reader's zoom kept when the figure is redrawn.
 *
 * After Plotly draws, fitPlot() measures what it drew and redraws where text would not
 * be legible (tests/site/test_figure_legibility.py checks the result, every figure,
 * light and dark, desktop and 390 px): a bar's label goes inside the bar only where it
 * fits, in whichever of the two text colours stands out more against that bar, and
 * otherwise beside the end of its error bar in the page's text colour (never shrunk,
 * never on the whisker); an axis title wider than the figure is broken into lines; a
 * y tick label that collides with an x tick label at the corner is moved aside; the
 * figure's height is set from what the plot areas got. When the last pass is done the
 * figure carries data-fitted="true" and data-redraws, how many times the passes drew it
 * again. Drawn again at a width and device it was fitted at (the other palette, a device
 * shown again), it starts from what the passes decided: drawn once, data-redraws 0.
 */
(function () {
  "use strict";

  // The book's own kernel ("ours") has one reserved colour, is drawn last (on top) and
  // thickest, with round markers. Every other implementation (a "peer", or one series of
  // a sweep) takes a slot: a colour from a colour-blind-safe set (Okabe-Ito's hues, made
  // darker for a white page and lighter for a dark one, so that each keeps 3:1 against
  // the page), and its own dash and marker symbol, so that two slots differ in three ways.
  // Under simulated deuteranopia and protanopia (Machado et al. 2009) every slot's colour
  // stays at least CIEDE2000 20 from ours, light and dark (tests/site/test_figure_design.py
  // measures what is drawn). Ceilings and markers are grey and thin, no symbol.
  const OURS = ["triton", "wrapper", "ours"];
  const REFERENCE = ["ceiling", "ceiling-2", "marker"];
  // Named peers keep their slot across the book (torch is always orange); a role
  // "series-N" takes slot N.
  const SLOTS = { torch: 0, torch_add: 0, eager: 0, compile: 1, graph: 1, cublas: 2, liger: 3 };
  const DASHES = ["dot", "dashdot", "longdash", "dash", "longdashdot", "5px,2px", "2px,5px"];
  const SYMBOLS = ["square", "diamond", "triangle-up", "x", "triangle-down", "star", "cross",
    "pentagon", "hexagram"];
  const WIDTH = { ours: 3.5, peer: 2, ceiling: 1.5, marker: 1 };

  const PALETTES = {
    light: {
      text: "#1f2430", grid: "rgba(0,0,0,0.10)", line: "rgba(0,0,0,0.35)", barText: "#ffffff",
      ours: "#283593",
      roles: { ceiling: "#424242", "ceiling-2": "#8d6e63", marker: "#9e9e9e" },
      slots: ["#b86e00", "#00805c", "#4b9cd2", "#c0391b", "#8a7066", "#6f6400", "#767676"],
    },
    dark: {
      text: "#e2e4ec", grid: "rgba(255,255,255,0.12)", line: "rgba(255,255,255,0.35)", barText: "#15171e",
      ours: "#8c9eff",
      roles: { ceiling: "#e0e0e0", "ceiling-2": "#bcaaa4", marker: "#9e9e9e" },
      slots: ["#ffb026", "#1fa582", "#0f7587", "#ff6e4a", "#c2aaa2", "#e2d54a", "#b0b0b0"],
    },
  };

  function scheme() {
    const s = document.body && document.body.getAttribute("data-md-color-scheme");
    return s === "slate" ? "dark" : "light";
  }

  function isOurs(role) { return OURS.indexOf(role) >= 0; }

  function slotOf(role) {
    if (role && role.startsWith("series-")) return parseInt(role.slice(7), 10) || 0;
    return SLOTS[role] !== undefined ? SLOTS[role] : 0;
  }

  function colourFor(role, pal) {
    if (isOurs(role)) return pal.ours;
    if (pal.roles[role]) return pal.roles[role];
    return pal.slots[slotOf(role) % pal.slots.length];
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

  const AXIS = /^[xy]axis\d*$/;

  function themed(plot, state) {
    const pal = PALETTES[scheme()];
    // A figure that encodes something in its own dashes (solid: fp32, dashed: bf16, say)
    // keeps them; otherwise each peer's dash comes from its slot.
    const ownDashes = plot.data.some(function (t) {
      const role = (t.meta || {}).role;
      return t.type !== "bar" && REFERENCE.indexOf(role) < 0 && t.line && t.line.dash;
    });
    let data = plot.data.map(function (t) {
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
        const role = meta.role;
        const c = colourFor(role, pal);
        const ours = isOurs(role);
        const ref = REFERENCE.indexOf(role) >= 0;
        const slot = slotOf(role);
        const given = trace.line || {};
        const dash = ownDashes || ours || ref ? given.dash || "solid" : DASHES[slot % DASHES.length];
        const width = ours ? Math.max(WIDTH.ours, given.width || 0)
          : given.width || (role === "marker" ? WIDTH.marker : ref ? WIDTH.ceiling : WIDTH.peer);
        trace.line = Object.assign({}, given, { color: c, dash: dash, width: width });
        const symbol = ours || ref ? "circle" : SYMBOLS[slot % SYMBOLS.length];
        trace.marker = Object.assign({ size: ours ? 8 : 7, symbol: symbol }, trace.marker, { color: c });
        // Host-bound points are hollow (render.host_bound_markers): hollow in the slot's
        // own symbol, unless the figure chose a symbol of its own.
        const symbols = trace.marker.symbol;
        if (Array.isArray(symbols) && Array.isArray(meta.host_bound)) {
          const own = symbols.some(function (g) { return String(g).replace(/-open$/, "") !== "circle"; });
          if (!own) {
            trace.marker.symbol = meta.host_bound.map(function (b) { return b ? symbol + "-open" : symbol; });
          }
        }
        if (trace.mode && trace.mode.indexOf("text") >= 0) trace.textfont = { color: pal.text };
        // Error bars span the 20th to 80th percentile of the repetitions.
        if (trace.error_y) trace.error_y = Object.assign({}, trace.error_y, { color: c });
      }
      return trace;
    });
    // Ours is drawn last, on top of every peer; the legend keeps the figure's order.
    const order = data.map(function (t, i) { return i; }).sort(function (a, b) {
      const ra = data[a].legendrank === undefined ? 1000 : data[a].legendrank;
      const rb = data[b].legendrank === undefined ? 1000 : data[b].legendrank;
      return ra - rb || a - b;
    });
    order.forEach(function (i, k) { data[i].legendrank = k + 1; });
    const onTop = function (t) { return t.type !== "bar" && isOurs((t.meta || {}).role); };
    data = data.filter(function (t) { return !onTop(t); }).concat(data.filter(onTop));

    const layout = JSON.parse(JSON.stringify(plot.layout || {}));
    const phone = state.phone;
    // Panels side by side on a desk are stacked on a phone.
    if (layout.grid) {
      const n = plot.data.reduce(function (m, t) {
        return Math.max(m, parseInt((t.xaxis || "x").slice(1), 10) || 1);
      }, 1);
      const stacked = phone ? { rows: n, columns: 1 } : {};
      const g = Object.assign({}, layout.grid, stacked);
      // Room between rows for a panel's tick labels, its x title and the next one's title.
      g.ygap = g.rows > 1 ? 0.3 : 0.2;
      g.xgap = 0.12;
      layout.grid = g;
      // One x title under the last row, one y title left of the first column.
      for (let i = 1; i <= n; i++) {
        const suffix = i === 1 ? "" : String(i);
        if (g.rows > 1 && i <= n - g.columns && layout["xaxis" + suffix]) {
          layout["xaxis" + suffix] = Object.assign({}, layout["xaxis" + suffix], { title: { text: "" } });
        }
        if ((i - 1) % g.columns > 0 && layout["yaxis" + suffix]) {
          layout["yaxis" + suffix] = Object.assign({}, layout["yaxis" + suffix], { title: { text: "" } });
        }
      }
    }
    Object.assign(layout, {
      paper_bgcolor: "rgba(0,0,0,0)",
      plot_bgcolor: "rgba(0,0,0,0)",
      font: { color: pal.text, size: 13 },
      margin: { l: 64, r: 16, t: layout.grid ? 32 : 16, b: 16 },  // panels: room for their titles
      // Anchored to the bottom of the whole figure (not the plot area), so the legend
      // takes its own room below the x-axis title however many rows it wraps into.
      legend: {
        orientation: "h", x: 0, y: 0, xref: "container", yref: "container", yanchor: "bottom",
        bgcolor: "rgba(0,0,0,0)", tracegroupgap: 0,
      },
      hoverlabel: { namelength: -1 },
      // A first guess: fitHeight() then sizes the figure to its content.
      height: state.height || layout.height || 420,
    });
    Object.keys(layout).forEach(function (ax) {
      if (!AXIS.test(ax)) return;
      layout[ax] = Object.assign({}, layout[ax], {
        gridcolor: pal.grid, linecolor: pal.line, zerolinecolor: pal.grid,
        automargin: true,
      });
      // Powers of ten written as powers (10⁴), as everywhere in the book.
      if (layout[ax].type === "log") layout[ax].exponentformat = "power";
    });
    ["xaxis", "yaxis"].forEach(function (ax) {
      if (!layout[ax]) layout[ax] = { gridcolor: pal.grid, linecolor: pal.line, zerolinecolor: pal.grid, automargin: true };
    });
    // The reader's zoom survives a redraw (a new width, the other palette).
    Object.keys(state.zoom || {}).forEach(function (ax) {
      layout[ax] = Object.assign({}, layout[ax], { range: state.zoom[ax].slice(), autorange: false });
    });
    (layout.annotations || []).forEach(function (a) {
      a.font = Object.assign({}, a.font, { color: pal.text });
      a.arrowcolor = pal.text;
    });
    return {
      data: data, layout: layout, asked: (plot.layout || {}).height || 0, ownDashes: ownDashes,
      zoomed: Object.keys(state.zoom || {}),
    };
  }

  // ---- fitting: measure what Plotly drew, redraw where text would not be legible ----

  const PAD = 4;  // px between a label and the edge of its bar or the end of its whisker
  const FIT_PASSES = 6;

  function fitPasses(el, gd, fig, token, pass, key) {
    if (token !== el.__book.token) return null;  // a newer draw took over
    const changed = pass < FIT_PASSES && fitPlot(gd, fig);
    if (!changed) {
      if (key && pass < FIT_PASSES) el.__book.fits[key] = fitted(fig);
      el.setAttribute("data-redraws", String(pass));
      el.setAttribute("data-fitted", "true");
      return null;
    }
    return Plotly.react(gd, fig.data, fig.layout, CONFIG).then(function () {
      return fitPasses(el, gd, fig, token, pass + 1, key);
    });
  }

  // What the passes decided, kept per device and width: drawn again there (the other
  // palette, a device shown again), a figure starts from it and is drawn once, where a
  // fresh fit draws it two to four times. The first pass then only confirms it. (Not
  // while the reader has zoomed in: their ranges change the ticks and the labels.)
  const FITTED = ["dtick", "tick0", "tickvals", "ticktext", "title", "ticklabelstandoff", "range",
    "autorange"];

  function fitted(fig) {
    const layout = { height: fig.layout.height };
    Object.keys(fig.layout).forEach(function (k) {
      if (!AXIS.test(k)) return;
      const ax = fig.layout[k];
      layout[k] = {};
      FITTED.forEach(function (f) { if (f in ax) layout[k][f] = ax[f]; });
      // A range Plotly chose (and wrote back) is chosen again; one set here stays.
      if (ax.autorange !== false) { delete layout[k].range; delete layout[k].autorange; }
    });
    return JSON.parse(JSON.stringify({
      layout: layout, decades: fig.decades || {},
      labels: (fig.layout.annotations || []).filter(function (a) { return a.meta === "bar-label"; }),
      textposition: fig.data.map(function (t) { return Array.isArray(t.textposition) ? t.textposition : null; }),
    }));
  }

  function refit(fig, fit) {
    const pal = PALETTES[scheme()];
    Object.keys(fit.layout).forEach(function (k) {
      fig.layout[k] = AXIS.test(k) ? Object.assign({}, fig.layout[k], fit.layout[k]) : fit.layout[k];
    });
    fig.decades = Object.assign({}, fit.decades);
    fig.layout.annotations = (fig.layout.annotations || []).concat(fit.labels.map(function (a) {
      return Object.assign({}, a, { font: Object.assign({}, a.font, { color: pal.text }) });
    }));
    fit.textposition.forEach(function (p, i) { if (p) fig.data[i].textposition = p.slice(); });
  }

  function fitPlot(gd, fig) {
    let changed = decadeTicks(gd, fig);
    changed = fitBarLabels(gd, fig) || changed;
    changed = wrapAxisTitles(gd, fig) || changed;
    changed = clearCornerTicks(gd, fig) || changed;
    changed = fitHeight(gd, fig) || changed;
    return changed;
  }

  // The height of a figure comes from its content: each plot area (each panel) gets
  // PLOT_MIN px (a phone: less wide than PHONE_PX), and the legend, titles and tick
  // labels get what they need on top of that, so that a long legend no longer squashes
  // the plot. Horizontal bars get BAR_PX per bar instead (at least the figure's own
  // height). A figure that asks for a height gets at least that.
  const PHONE_PX = 600;
  const PLOT_MIN = { desktop: 320, phone: 240 };
  const BAR_PX = 32;

  function fitHeight(gd, fig) {
    const areas = Array.from(gd.querySelectorAll(".draglayer .nsewdrag")).map(function (a) {
      return a.getBoundingClientRect();
    });
    if (!areas.length) return false;
    const full = gd._fullLayout.height;
    const least = Math.min.apply(null, areas.map(function (a) { return a.height; }));
    let want = gd.clientWidth < PHONE_PX ? PLOT_MIN.phone : PLOT_MIN.desktop;
    const bars = fig.data.filter(function (t) { return t.type === "bar" && t.orientation === "h"; });
    if (bars.length) {
      const grouped = fig.layout.barmode === "group" ? bars.length : 1;
      const labels = new Set();
      bars.forEach(function (t) { t.y.forEach(function (y) { labels.add(y); }); });
      // A label of two lines beside a bar needs the room of two lines.
      const tall = bars.some(function (t) {
        return (t.text || []).some(function (x) { return String(x).indexOf("<br>") >= 0; });
      });
      want = Math.max(4 * BAR_PX, labels.size * grouped * (tall ? 1.6 : 1) * BAR_PX);
    }
    // The plot areas are fractions of the plot region (stacked panels: less their gaps,
    // which are fractions too), so the region grows by region/least px per px they lack.
    const region = gd._fullLayout._size.h;
    const height = Math.max(Math.round(full + (want - least) * region / least), fig.asked || 0);
    if (Math.abs(height - full) < 2) return false;
    fig.layout.height = height;
    return true;
  }

  // Log axes are labelled at powers of ten only (Plotly's small "2" and "5" between them
  // read as values); with less than a decade in view, at 1, 2 and 5 times a power of ten,
  // each written out in full.
  function decadeTicks(gd, fig) {
    let changed = false;
    Object.keys(gd._fullLayout).forEach(function (k) {
      if (!AXIS.test(k)) return;
      const full = gd._fullLayout[k];
      const ax = fig.layout[k] || {};
      // Ticks the figure chose stay; those chosen here are chosen again each pass (the
      // plot area may have grown since).
      const mine = fig.decades || (fig.decades = {});
      if (!full || full.type !== "log" || ((ax.tickvals || ax.dtick !== undefined) && !mine[k])) return;
      const lo = Math.min(full.range[0], full.range[1]);
      const hi = Math.max(full.range[0], full.range[1]);
      const first = Math.ceil(lo - 1e-9), last = Math.floor(hi + 1e-9);
      let set;
      if (last > first) {
        const room = Math.max(2, Math.floor(full._length / (k[0] === "x" ? 60 : 30)));
        set = { dtick: Math.max(1, Math.ceil((last - first) / (room - 1))), tick0: 0 };
      } else {
        const vals = [];
        for (let e = Math.floor(lo); e <= Math.ceil(hi); e++) {
          [1, 2, 5].forEach(function (m) {
            const v = m * Math.pow(10, e);
            const l = Math.log10(v);
            if (l >= lo - 1e-9 && l <= hi + 1e-9) vals.push(Number(v.toPrecision(1)));
          });
        }
        set = { tickvals: vals, ticktext: vals.map(function (v) { return v.toLocaleString("en-US"); }) };
      }
      const before = JSON.stringify([ax.dtick, ax.tickvals]);
      const next = Object.assign({}, ax, { dtick: undefined, tick0: undefined, tickvals: undefined, ticktext: undefined }, set);
      mine[k] = true;
      if (JSON.stringify([next.dtick, next.tickvals]) === before) return;
      fig.layout[k] = next;
      changed = true;
    });
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
    // (Not while the reader has zoomed in: their range stays.)
    if (xa.range && xa.type !== "log" && rangeMax > xa.range[1] * 1.001 && fig.zoomed.indexOf("xaxis") < 0) {
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
    // Every axis, panels' included (xaxis2's title is .g-x2title).
    Object.keys(fig.layout).filter(function (k) { return AXIS.test(k); }).map(function (k) {
      return [k, ".g-" + k[0] + k.slice(5) + "title text", k[0] === "x"];
    })
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

  // No toolbar on a touch screen: there it would sit, for good, over the top right of the
  // plot, where the ceilings and the fastest kernels are. (A double tap still resets a zoom.)
  const TOUCH = !!(window.matchMedia && window.matchMedia("(hover: none), (pointer: coarse)").matches);
  const CONFIG = {
    responsive: true,
    displaylogo: false,
    displayModeBar: TOUCH ? false : "hover",
    modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d"],
  };

  // The reader's zoom, per axis, so that a redraw (a new width, the other palette) keeps it.
  function remember(el, gd, ev) {
    const zoom = el.__book.zoom;
    Object.keys(ev || {}).forEach(function (key) {
      const m = key.match(/^([xy]axis\d*)\.(range|autorange)/);
      if (!m) return;
      const ax = gd.layout[m[1]] || {};
      if (m[2] === "autorange" || !ax.range) delete zoom[m[1]];
      else zoom[m[1]] = ax.range.slice();
    });
  }

  function draw(el) {
    const state = el.__book;
    const entry = state.payload.devices[state.index];
    const plotDiv = el.querySelector(".book-figure__plot");
    const fig = themed(entry.plot, {
      phone: plotDiv.clientWidth > 0 && plotDiv.clientWidth < PHONE_PX, zoom: state.zoom,
    });
    const key = fig.zoomed.length ? null : state.index + "@" + plotDiv.clientWidth;
    if (key && state.fits[key]) refit(fig, state.fits[key]);
    const token = (state.token = (state.token || 0) + 1);
    el.setAttribute("data-fitted", "false");
    el.setAttribute("data-own-dashes", fig.ownDashes ? "true" : "false");
    Plotly.react(plotDiv, fig.data, fig.layout, CONFIG).then(function () {
      if (!plotDiv.__bookZoom) {
        plotDiv.__bookZoom = true;
        plotDiv.on("plotly_relayout", function (ev) { remember(el, plotDiv, ev); });
      }
      return fitPasses(el, plotDiv, fig, token, 0, key);
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
    el.__book = { payload: payload, index: 0, zoom: {}, fits: {} };
    const bar = el.querySelector(".book-figure__devices");
    const label = document.createElement("span");
    label.className = "book-figure__devices-label";
    // A counted figure (arithmetic on shapes, no GPU) says so, and has no device switch.
    label.textContent = payload.counted ? "Counted, not measured"
      : payload.devices.length > 1 ? "Measured on:" : "Measured on " + payload.devices[0].label;
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
          el.__book.zoom = {};  // another GPU's data: its own ranges
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
    // A new width changes what fits: draw again (from the data, keeping the reader's zoom)
    // once resizing settles. A new height alone (a phone's address bar sliding away)
    // changes nothing: Plotly's own resize keeps the figure as it is.
    let resizing = null;
    let width = window.innerWidth;
    window.addEventListener("resize", function () {
      if (window.innerWidth === width) return;
      width = window.innerWidth;
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
