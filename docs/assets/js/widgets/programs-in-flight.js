/* Widget "programs-in-flight" (lesson 04): for one BLOCK and num_warps of the vector add,
 * the programs the GPU must start against the rate it starts them, and the bytes each SM
 * has in flight.
 *
 * The problem is the block-size sweep's: out = x + y over n fp32 elements (n read from the
 * data, 2^26 where there is none). For a BLOCK (slider, powers of two 4..16384), num_warps
 * and a device, as kernels/vector_add.py runs it:
 *   programs          = ceil(n / BLOCK)
 *   bytes moved       = 3 * 4 * n, whatever BLOCK is (masked elements move nothing)
 *   starting them     = the empty control kernel's time on the same grid (measured);
 *                       programs / that time = the GPU's dispatch rate
 *   moving the bytes  = bytes / the run's copy bandwidth (its ceilings.copy)
 *   programs per SM   = the least of: threads per SM / (32 * num_warps), programs per SM,
 *                       registers per SM / (registers per warp, rounded up to 256, times
 *                       num_warps), the limits of the device's compute capability from
 *                       figures/vector_add.py (data-values vector_add.sm_limit:of=...)
 *   bytes in flight   = programs per SM * 2 * BLOCK * 4: the x and y tiles each resident
 *                       program has asked memory for
 *   lifetime          = programs per SM * SMs / (programs / the add's time), Little's law
 * and what sets the time: starting programs (the add within 5% of its empty control),
 * moving bytes (within 10% of the copy time), or neither (too few bytes in flight to
 * cover memory's round trip, or spilled registers). Every number sits in an element with
 * a data-out attribute.
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
  const REGISTER_UNIT = 256; // registers go to a warp in units of 256 (figures/vector_add.py)
  const DISPATCH_TIE = 1.05; // the add within 5% of its empty control: starting programs
  const COPY_TIE = 1.1; // within 10% of the copy time: moving bytes

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
  function value(key, slug) {
    const v = W.data().values[key];
    return v && slug in v ? v[slug] : null;
  }

  W.register("programs-in-flight", function mount(el) {
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
      deviceSelect.appendChild(h("option", { value: "", text: "no data" }));
      deviceSelect.disabled = true;
    }

    const out = {};
    function o(name) {
      out[name] = h("span", { "data-out": name });
      return out[name];
    }
    const blockOut = h("output", { "data-out": "block", "aria-hidden": "true" });
    const strip = h("div", { class: "book-widget__bars", role: "img", "data-out": "strip" });

    el.appendChild(h("p", { class: "book-widget__title", text: "Programs to start, and bytes in flight per SM" }));
    el.appendChild(h("div", { class: "book-widget__controls" }, [
      h("div", { class: "book-widget__field" }, [W.field("BLOCK", slider), blockOut]),
      W.field("num_warps", warpSelect),
      W.field("Measured on", deviceSelect),
    ]));
    el.appendChild(h("p", { class: "book-widget__numbers", "aria-live": "polite" }, [
      "n = ", o("n"), " fp32 elements in tiles of BLOCK = ", o("block-value"), ": ", o("programs"),
      " programs, each reading ", o("bytes-per-program"), " of x and y and writing half that; ",
      o("bytes-total"), " in all, the same for every BLOCK.",
    ]));
    const measured = h("div", { "data-out": "measured" });
    el.appendChild(measured);
    el.appendChild(strip);
    el.appendChild(h("p", { class: "book-widget__note", "data-out": "strip-caption" }));
    el.appendChild(h("p", { class: "book-widget__note" }, [
      "Counts are exact for kernels/vector_add.py. Measured values come from the block-size " +
      "sweep (figures/data), the data of the figure above; the SM limits are those of the " +
      "device's compute capability.",
    ]));

    function rowsFor(slug) {
      return slug && docs[slug] ? docs[slug].rows : [];
    }
    function rowAt(slug, block, warps) {
      return rowsFor(slug).find(function (r) {
        return r.block === block && r.num_warps === warps;
      }) || null;
    }
    // Programs of this row's kernel one SM holds at once, and which limit sets it.
    function perSM(slug, row) {
      const threads = value("vector_add.sm_limit:of=threads", slug);
      const slots = value("vector_add.sm_limit:of=blocks", slug);
      const regs = value("vector_add.sm_limit:of=registers", slug);
      if (threads === null || slots === null || regs === null || row.n_regs === undefined) return null;
      const perWarp = Math.ceil(row.n_regs * 32 / REGISTER_UNIT) * REGISTER_UNIT;
      const by = [
        ["threads", Math.floor(threads / (32 * row.num_warps))],
        ["program slots", slots],
        ["registers", Math.floor(Math.floor(regs / perWarp) / row.num_warps)],
      ];
      return by.reduce(function (a, b) {
        return b[1] < a[1] ? b : a;
      });
    }
    function para(parts) {
      const p = h("p", { class: "book-widget__numbers" });
      parts.forEach(function (x) {
        p.appendChild(typeof x === "string" ? document.createTextNode(x) : x);
      });
      measured.appendChild(p);
    }
    function span(name, text) {
      return h("span", { "data-out": name, text: text });
    }

    function renderMeasured(block) {
      measured.textContent = "";
      const row = rowAt(state.slug, block, state.warps);
      if (!row || !row.empty_time_s) {
        para([span("time", "No measurement"), state.slug
          ? " at BLOCK = " + block + ", num_warps = " + state.warps + " on this device."
          : ": no device has block-sweep data (make figures writes it on a GPU)."]);
        return;
      }
      const doc = docs[state.slug];
      const programs = Math.ceil(row.n / block);
      const time = row.time_s.p50;
      const empty = row.empty_time_s.p50;
      const copy = doc.ceilings.copy;
      const copyBw = copy.bytes / copy.time_s.p50;
      const copyTime = row.bytes / copyBw;
      para([
        "On ", span("device", names[state.slug] || state.slug), " the add takes ",
        span("time", millis(time)), " (", span("bandwidth", tbps(bandwidth(row))), "). An empty kernel on the same grid takes ",
        span("empty-time", millis(empty)), ": the GPU starts ", span("rate", (programs / empty * 1e-9).toFixed(2)),
        " programs per ns. Moving the bytes at the copy bandwidth (", span("copy", tbps(copyBw)), ") takes ",
        span("copy-time", millis(copyTime)), ".",
      ]);
      let limit;
      if (time <= DISPATCH_TIE * empty) limit = "starting the programs";
      else if (time <= COPY_TIE * copyTime) limit = "moving the bytes";
      else if (row.n_spills > 0) limit = "neither: the kernel spills " + row.n_spills + " values to local memory";
      else limit = "neither: too few bytes in flight to cover memory's round trip";
      para(["What sets the time: ", span("limit", limit), "."]);
      const sm = perSM(state.slug, row);
      if (sm === null) return;
      const sms = doc.provenance.sm_count;
      const life = sm[1] * sms / (programs / time);
      para([
        "One SM holds ", span("per-sm", String(sm[1])), " of these programs at once (limited by its ",
        span("limiter", sm[0]), "; ", span("regs", String(row.n_regs)), " registers per thread), ",
        span("resident", grouped(sm[1] * sms)), " on the GPU, with ", span("in-flight", bytes(sm[1] * 2 * block * FP32)),
        " of loads in flight per SM. At the measured time, by Little's law, each program stays about ",
        span("lifetime", grouped(Math.round(life * 1e9)) + " ns"), ".",
      ]);
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
      slider.setAttribute("aria-valuetext", "BLOCK = " + block);
      blockOut.textContent = String(block);
      el.setAttribute("data-block", String(block));
      out.n.textContent = grouped(n);
      out["block-value"].textContent = String(block);
      out.programs.textContent = grouped(Math.ceil(n / block));
      out["bytes-per-program"].textContent = bytes(2 * block * FP32);
      out["bytes-total"].textContent = bytes(3 * FP32 * n);
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
