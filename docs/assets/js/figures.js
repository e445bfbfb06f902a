/* Draw the book's measured figures.
 *
 * Each figure is a <div class="book-figure"> holding a JSON payload written at build
 * time by scripts/render.py: {id, title, devices: [{slug, label, caption, plot}]}.
 * Every trace names a colour role in meta.role; the palette for that role depends on
 * the light or dark scheme Material is showing, and the figure is redrawn when the
 * reader toggles it. With data from more than one GPU, buttons switch the device.
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
        // A label too long for its bar is drawn beside it, on the page's background.
        trace.insidetextfont = { color: pal.barText };
        trace.outsidetextfont = { color: pal.text };
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
    Plotly.react(plotDiv, fig.data, fig.layout, CONFIG);
    el.querySelector(".book-figure__caption").textContent = entry.caption;
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
