/* Widget "hbm-trips" (lesson 04): HBM <-> on-chip trips of the vector add for one BLOCK.
 *
 * The problem is the block-size sweep's: out = x + y over n fp32 elements (n read from the
 * committed data, 2^26 where there is none). For a BLOCK (slider, powers of two 4..16384)
 * and num_warps the widget counts, as kernels/vector_add.py runs it:
 *   programs          = ceil(n / BLOCK)
 *   trips per program = 2 tile loads (x, y) + 1 tile store (out), BLOCK * 4 bytes each
 *   trips in total    = 3 * programs
 *   bytes moved       = 3 * 4 * n, whatever BLOCK is (masked lanes move nothing)
 *   tile data on chip = the x and y tiles a program holds at once, 2 * BLOCK * 4 bytes;
 *                       per thread 2 * max(1, BLOCK / (32 * num_warps)) 32-bit registers
 *                       (the simple blocked layout of the "lanes" widget: a model)
 * and reads the measured point of the sweep from the data the build embeds
 * (data-needs="vector_add_block_sweep", see widgets.js): median bandwidth, time, the empty
 * control kernel's time, registers and spills of the compiled kernel. Every number sits in
 * an element with a data-out attribute.
 */
(function () {
  "use strict";
  const W = window.BookWidgets;
  const h = W.h;
  const BENCH = "vector_add_block_sweep";
  const LOG_MIN = 2; // BLOCK = 4
  const LOG_MAX = 14; // BLOCK = 16384
  const WARPS = [1, 2, 4, 8, 16];
  const DEFAULT_N = 67108864; // 2^26, the sweep's problem
  const FP32 = 4;

  function grouped(v) {
    return String(v).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }
  // Bytes as an exact count, with KiB or MiB beside it from 1024 bytes up.
  function bytes(b) {
    let s = grouped(b) + " B";
    if (b >= 1048576) s += " (" + trim(b / 1048576) + " MiB)";
    else if (b >= 1024) s += " (" + trim(b / 1024) + " KiB)";
    return s;
  }
  function trim(v) {
    return v.toFixed(1).replace(/\.0$/, "");
  }
  function tbps(v) {
    return (v / 1e12).toFixed(2) + " TB/s";
  }
  function millis(s) {
    return (s * 1e3).toFixed(3) + " ms";
  }
  function bandwidth(row) {
    return row.bytes / row.time_s.p50;
  }

  W.register("hbm-trips", function mount(el) {
    const docs = W.data().benchmarks[BENCH] || {};
    const slugs = Object.keys(docs);
    const names = W.data().devices;
    const state = { log: 10, warps: 4, slug: slugs[0] || null };

    const slider = h("input", { type: "range", min: LOG_MIN, max: LOG_MAX, step: 1, value: state.log, "data-in": "block" });
    const warpSelect = h("select", { "data-in": "num_warps" });
    WARPS.forEach(function (w) {
      const opt = h("option", { value: w, text: String(w) });
      if (w === state.warps) opt.selected = true;
      warpSelect.appendChild(opt);
    });
    const deviceSelect = h("select", { "data-in": "device" });
    slugs.forEach(function (s) {
      deviceSelect.appendChild(h("option", { value: s, text: names[s] || s }));
    });
    if (!slugs.length) {
      deviceSelect.appendChild(h("option", { value: "", text: "not yet measured" }));
      deviceSelect.disabled = true;
    }

    const out = {};
    function o(name) {
      out[name] = h("span", { "data-out": name });
      return out[name];
    }
    const blockOut = h("output", { "data-out": "block", "aria-hidden": "true" });
    const strip = h("div", { class: "book-widget__bars", role: "img", "data-out": "strip" });

    el.appendChild(h("p", { class: "book-widget__title", text: "HBM ↔ on-chip trips of the vector add" }));
    el.appendChild(h("div", { class: "book-widget__controls" }, [
      h("div", { class: "book-widget__field" }, [W.field("BLOCK", slider), blockOut]),
      W.field("num_warps", warpSelect),
      W.field("Measured on", deviceSelect),
    ]));
    el.appendChild(h("p", { class: "book-widget__numbers", "aria-live": "polite" }, [
      "n = ", o("n"), " fp32 elements in tiles of BLOCK = ", o("block-value"), ": ", o("programs"), " programs.",
    ]));
    el.appendChild(h("p", { class: "book-widget__numbers" }, [
      "Each program makes 2 loads + 1 store = ", o("trips-per-program"), " trips of ", o("bytes-per-trip"),
      ", ", o("bytes-per-program"), " in all; the grid makes ", o("trips-total"), " trips (", o("loads-total"),
      " loads, ", o("stores-total"), " stores) moving ", o("bytes-total"), " — the same bytes for every BLOCK.",
    ]));
    el.appendChild(h("p", { class: "book-widget__numbers" }, [
      "On chip, a program holds its x and y tiles: ", o("onchip-per-program"), "; with ", o("threads"),
      " threads that is ", o("ept"), " element(s) of each per thread, ", o("regs-model"), " registers of data.",
    ]));
    const measured = h("p", { class: "book-widget__numbers", "data-out": "measured" });
    el.appendChild(measured);
    el.appendChild(strip);
    el.appendChild(h("p", { class: "book-widget__note", "data-out": "strip-caption" }));
    el.appendChild(h("p", { class: "book-widget__note" }, [
      "Counts are exact for kernels/vector_add.py; the on-chip registers assume the simple blocked " +
      "layout (the compiler may arrange them differently). Measured values come from the committed " +
      "block-size sweep (figures/data), the data of the figure above.",
    ]));

    function rowsFor(slug) {
      return slug && docs[slug] ? docs[slug].rows : [];
    }
    function rowAt(slug, block, warps) {
      return rowsFor(slug).find(function (r) {
        return r.block === block && r.num_warps === warps;
      }) || null;
    }

    function renderMeasured(block) {
      measured.textContent = "";
      const row = rowAt(state.slug, block, state.warps);
      if (!row) {
        measured.appendChild(h("span", { "data-out": "bandwidth", text: "not measured" }));
        measured.appendChild(document.createTextNode(
          state.slug ? " at BLOCK = " + block + ", num_warps = " + state.warps + " on this device."
            : ": no device has block-sweep data yet (make figures writes it on a GPU)."));
        return;
      }
      const best = rowsFor(state.slug).reduce(function (a, r) {
        return bandwidth(r) > bandwidth(a) ? r : a;
      });
      const parts = [
        "Measured on ", h("span", { "data-out": "device", text: names[state.slug] || state.slug }), ": ",
        h("span", { "data-out": "bandwidth", text: tbps(bandwidth(row)) }), " (",
        h("span", { "data-out": "time", text: millis(row.time_s.p50) }), " per add",
      ];
      if (row.empty_time_s) {
        parts.push("; an empty kernel on the same grid takes ",
          h("span", { "data-out": "empty-time", text: millis(row.empty_time_s.p50) }));
      }
      parts.push(")");
      if (row.n_regs !== undefined) {
        parts.push("; the compiled kernel uses ", h("span", { "data-out": "regs", text: String(row.n_regs) }),
          " registers per thread and spills ", h("span", { "data-out": "spills", text: String(row.n_spills) }));
      }
      parts.push(". Best of the sweep: ", h("span", { "data-out": "best", text: tbps(bandwidth(best)) }),
        " at BLOCK = " + best.block + ", num_warps = " + best.num_warps + ".");
      parts.forEach(function (p) {
        measured.appendChild(typeof p === "string" ? document.createTextNode(p) : p);
      });
    }

    function renderStrip(block) {
      strip.textContent = "";
      const rows = rowsFor(state.slug).filter(function (r) {
        return r.num_warps === state.warps;
      }).sort(function (a, b) {
        return a.block - b.block;
      });
      const caption = el.querySelector('[data-out="strip-caption"]');
      if (!rows.length) {
        strip.setAttribute("aria-label", "no measured bandwidths to draw");
        caption.textContent = "";
        return;
      }
      caption.textContent = "Bars, left to right: BLOCK = " + rows[0].block + " … " + rows[rows.length - 1].block +
        " (doubling), num_warps = " + state.warps + "; height: measured bandwidth. The current BLOCK is outlined.";
      const top = Math.max.apply(null, rows.map(bandwidth));
      const labels = [];
      rows.forEach(function (r) {
        const bar = h("span", {
          class: "book-widget__bar" + (r.block === block ? " book-widget__bar--current" : ""),
          "data-block": r.block,
          title: "BLOCK " + r.block + ": " + tbps(bandwidth(r)),
        });
        bar.style.height = Math.max(2, Math.round(100 * bandwidth(r) / top)) + "%";
        strip.appendChild(bar);
        labels.push("BLOCK " + r.block + " " + tbps(bandwidth(r)));
      });
      strip.setAttribute("aria-label", "Measured bandwidth with num_warps = " + state.warps + ": " + labels.join(", "));
    }

    function render() {
      const block = Math.pow(2, state.log);
      const first = rowsFor(state.slug)[0];
      const n = first ? first.n : DEFAULT_N;
      const programs = Math.ceil(n / block);
      const threads = 32 * state.warps;
      const ept = Math.max(1, block / threads);
      slider.setAttribute("aria-valuetext", "BLOCK = " + block);
      blockOut.textContent = String(block);
      el.setAttribute("data-block", String(block));
      out.n.textContent = grouped(n);
      out["block-value"].textContent = String(block);
      out.programs.textContent = grouped(programs);
      out["trips-per-program"].textContent = "3";
      out["bytes-per-trip"].textContent = bytes(block * FP32);
      out["bytes-per-program"].textContent = bytes(3 * block * FP32);
      out["trips-total"].textContent = grouped(3 * programs);
      out["loads-total"].textContent = grouped(2 * programs);
      out["stores-total"].textContent = grouped(programs);
      out["bytes-total"].textContent = bytes(3 * FP32 * n);
      out["onchip-per-program"].textContent = bytes(2 * block * FP32);
      out.threads.textContent = String(threads);
      out.ept.textContent = String(ept);
      out["regs-model"].textContent = String(2 * ept);
      renderMeasured(block);
      renderStrip(block);
    }

    slider.addEventListener("input", function () {
      const v = parseInt(slider.value, 10);
      if (Number.isFinite(v)) state.log = Math.min(LOG_MAX, Math.max(LOG_MIN, v));
      render();
    });
    warpSelect.addEventListener("change", function () {
      state.warps = parseInt(warpSelect.value, 10);
      render();
    });
    deviceSelect.addEventListener("change", function () {
      state.slug = deviceSelect.value || null;
      render();
    });

    render();
  });
})();
