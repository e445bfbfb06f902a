/* Widget "pick-config" (lesson 13): pick a matmul configuration, see what it measured.
 *
 * The reader chooses a device, a problem (dtype, M x N x K) and a configuration: BLOCK_M,
 * BLOCK_N, BLOCK_K, num_warps, num_stages. The widget shows the rate that configuration
 * measured on that problem (TFLOP/s from the median time, with the 20th-80th percentile
 * range, and as a share of the device's cuBLAS ceiling), whether it is in the autotuner's
 * list, whether it is the autotuner's pick, the shared memory its pipeline stages need,
 * and, where the sweep recorded the compiled kernel's registers and shared memory, how
 * many of its programs fit on one SM (lesson 13, "How many programs fit on an SM"). Every
 * measured number comes from the data the build embeds (data-needs on the element; see
 * widgets.js):
 *   - matmul_configs: lesson 13's sweep, one row per (problem, config), with
 *     autotuner_pick on the config the autotuner chose (figures/schemas/matmul_configs.json);
 *   - matmul_grouped: lesson 09's program-order run, which records only the autotuner's
 *     pick at one size (its group_m = 8 row is the kernel's default order);
 *   - ceilings: the device's cuBLAS rate.
 * A configuration with no row says so ("no measurement"); nothing is estimated.
 * CONFIGS mirrors kernels/matmul.py (tests/site/test_widget_pick_config.py checks it).
 */
(function () {
  "use strict";
  const W = window.BookWidgets;
  const h = W.h;

  // kernels/matmul.py CONFIGS: (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages).
  const CONFIGS = [
    [128, 256, 64, 8, 3],
    [256, 128, 64, 8, 3],
    [128, 256, 64, 8, 4],
    [128, 128, 64, 4, 4],
    [64, 256, 32, 4, 4],
    [128, 64, 64, 4, 4],
    [64, 128, 64, 4, 4],
    [64, 64, 128, 4, 4],
  ];
  const KNOBS = ["block_m", "block_n", "block_k", "num_warps", "num_stages"];
  const LABELS = { block_m: "BLOCK_M", block_n: "BLOCK_N", block_k: "BLOCK_K", num_warps: "num_warps", num_stages: "num_stages" };
  const ELEMENT_BYTES = { float16: 2, bfloat16: 2, float32: 4 };
  const DEFAULT_GROUP_M = 8; // kernels/matmul.py's matmul(group_m=8)
  // What one SM holds, by compute capability (figures/vector_add.py SM_LIMITS and
  // figures/matmul_autotune.py SM_SHARED): registers (given to a warp in blocks of 256),
  // shared memory (each resident program also takes 1 KiB), threads, programs.
  const SM_LIMITS = {
    "9.0": { registers: 65536, shared: 233472, threads: 2048, programs: 32 },
  };
  const REGISTER_UNIT = 256;
  const SHARED_RESERVED = 1024;

  // Programs of one compiled config that fit on an SM: { all, registers, shared }, or null.
  function perSM(row, capability) {
    const sm = SM_LIMITS[capability];
    if (!sm || !row.n_regs || !row.shared_bytes) return null;
    const perWarp = Math.ceil(row.n_regs * 32 / REGISTER_UNIT) * REGISTER_UNIT;
    const registers = Math.floor(Math.floor(sm.registers / perWarp) / row.num_warps);
    const shared = Math.floor(sm.shared / (row.shared_bytes + SHARED_RESERVED));
    const all = Math.min(registers, shared, Math.floor(sm.threads / (32 * row.num_warps)), sm.programs);
    return { all: all, registers: registers, shared: shared };
  }

  function cfgKey(c) {
    return KNOBS.map(function (k) { return c[k]; }).join("/");
  }
  function problemKey(r) {
    return [r.dtype, r.m, r.n, r.k, r.group_m].join("/");
  }
  function fromTuple(t) {
    const c = {};
    KNOBS.forEach(function (k, i) { c[k] = t[i]; });
    return c;
  }
  function cfgText(c) {
    return c.block_m + "×" + c.block_n + "×" + c.block_k + ", " + c.num_warps + " warps, " + c.num_stages + " stages";
  }

  // The measured rows of one device: the sweep where it ran, else what matmul_grouped holds.
  function records(d, slug) {
    const out = [];
    const seen = {};
    function add(r, pick, source) {
      const key = problemKey(r) + "|" + cfgKey(r);
      if (seen[key]) return;
      seen[key] = true;
      out.push({ row: r, pick: pick, source: source });
    }
    const sweep = (d.benchmarks.matmul_configs || {})[slug];
    if (sweep) sweep.rows.forEach(function (r) { add(r, !!r.autotuner_pick, "matmul_configs"); });
    const capability = sweep && sweep.provenance ? sweep.provenance.compute_capability : null;
    const grouped = (d.benchmarks.matmul_grouped || {})[slug];
    if (grouped) {
      grouped.rows.forEach(function (r) {
        // Its description: each row ran the autotuner's pick at this size.
        if (r.group_m === DEFAULT_GROUP_M) add(r, true, "matmul_grouped");
      });
    }
    return { list: out, swept: !!sweep, capability: capability };
  }

  function ceilingRate(d, slug, dtype) {
    const doc = (d.benchmarks.ceilings || {})[slug];
    const mm = doc && doc.ceilings && doc.ceilings.matmul && doc.ceilings.matmul[dtype];
    return mm ? { rate: mm.flops / mm.time_s.p50, size: mm.m + "×" + mm.n + "×" + mm.k } : null;
  }

  W.register("pick-config", function mount(el) {
    const d = W.data();
    const slugs = Object.keys(d.devices);
    const state = { slug: null, problem: null, cfg: fromTuple(CONFIGS[0]) };

    const out = {};
    function o(name) {
      out[name] = h("span", { "data-out": name });
      return out[name];
    }
    function set(name, text, value) {
      out[name].textContent = text;
      if (value === undefined) out[name].removeAttribute("data-value");
      else out[name].setAttribute("data-value", String(value));
    }

    const deviceSelect = h("select", { "data-in": "device" });
    slugs.forEach(function (s) { deviceSelect.appendChild(h("option", { value: s, text: d.devices[s] })); });
    const problemSelect = h("select", { "data-in": "problem" });
    const knobSelects = {};
    KNOBS.forEach(function (k) { knobSelects[k] = h("select", { "data-in": k }); });
    const pickBtn = h("button", { type: "button", class: "book-widget__button", "data-action": "pick", text: "Choose the autotuner's pick" });

    const tableBody = h("tbody", {});
    const table = h("div", { class: "book-widget__scroll" }, [
      h("table", { class: "book-widget__table", "data-out": "measured-table" }, [
        h("caption", { text: "Every configuration measured on this problem, fastest first" }),
        h("thead", {}, [h("tr", {}, [
          h("th", { scope: "col", text: "BLOCK M×N×K" }),
          h("th", { scope: "col", text: "warps" }),
          h("th", { scope: "col", text: "stages" }),
          h("th", { scope: "col", text: "TFLOP/s" }),
          h("th", { scope: "col", text: "autotuner" }),
        ])]),
        tableBody,
      ]),
    ]);
    const sourceNote = h("p", { class: "book-widget__note", "data-out": "source" });

    el.appendChild(h("p", { class: "book-widget__title", text: "Pick a matmul configuration" }));
    el.appendChild(h("div", { class: "book-widget__controls" }, [
      W.field("Device", deviceSelect),
      W.field("Problem", problemSelect),
    ]));
    el.appendChild(h("div", { class: "book-widget__controls" }, KNOBS.map(function (k) { return W.field(LABELS[k], knobSelects[k]); })));
    el.appendChild(h("div", { class: "book-widget__buttons" }, [pickBtn]));
    el.appendChild(h("p", { class: "book-widget__answer", "aria-live": "polite" }, [
      "Measured: ", o("tflops"), o("range"), ". ", o("of-cublas"),
    ]));
    el.appendChild(h("p", { class: "book-widget__numbers" }, [
      "In the autotuner's list: ", o("in-list"), ". The autotuner's pick for this problem: ", o("pick"), " (", o("is-pick"), ").",
    ]));
    el.appendChild(h("p", { class: "book-widget__numbers" }, [
      "Shared memory for the pipeline: ", o("smem"), " (num_stages × (BLOCK_M + BLOCK_N) × BLOCK_K × ", o("elem"),
      " bytes; an estimate, as kernels/matmul.py's shared_memory_bytes). Measured on this problem: ", o("measured-count"),
      " of the autotuner's ", o("list-count"), " configurations.",
    ]));
    el.appendChild(h("p", { class: "book-widget__numbers" }, [
      "Programs per SM at once: ", o("per-sm"), ".",
    ]));
    el.appendChild(table);
    el.appendChild(sourceNote);

    function fillSelect(sel, values, current) {
      sel.textContent = "";
      values.forEach(function (v) {
        const opt = h("option", { value: v, text: String(v) });
        if (v === current) opt.selected = true;
        sel.appendChild(opt);
      });
    }

    function deviceRecords() {
      return state.slug ? records(d, state.slug) : { list: [], swept: false, capability: null };
    }

    function problems(recs) {
      const byKey = {};
      recs.list.forEach(function (x) { byKey[problemKey(x.row)] = x.row; });
      return Object.keys(byKey).map(function (k) { return byKey[k]; }).sort(function (a, b) {
        return a.m * a.n * a.k - b.m * b.n * b.k || (a.dtype < b.dtype ? -1 : a.dtype > b.dtype ? 1 : 0);
      });
    }

    function setupDevice() {
      const recs = deviceRecords();
      const probs = problems(recs);
      problemSelect.textContent = "";
      probs.forEach(function (p) {
        problemSelect.appendChild(h("option", { value: problemKey(p), text: p.dtype + ", " + p.m + "×" + p.n + "×" + p.k + (p.group_m !== DEFAULT_GROUP_M ? ", group_m " + p.group_m : "") }));
      });
      if (!probs.length) problemSelect.appendChild(h("option", { value: "", text: "nothing measured" }));
      problemSelect.disabled = !probs.length;
      // Start on the problem with the most measured configurations (the sweep's, once run).
      const counts = {};
      recs.list.forEach(function (x) { const k = problemKey(x.row); counts[k] = (counts[k] || 0) + 1; });
      state.problem = probs.reduce(function (best, p) {
        return best === null || counts[problemKey(p)] > counts[problemKey(best)] ? p : best;
      }, null);
      if (state.problem) problemSelect.value = problemKey(state.problem);
      // The knobs offer every value of the autotuner's list and of the measured rows.
      KNOBS.forEach(function (k, i) {
        const vals = {};
        CONFIGS.forEach(function (c) { vals[c[i]] = true; });
        recs.list.forEach(function (x) { vals[x.row[k]] = true; });
        const sorted = Object.keys(vals).map(Number).sort(function (a, b) { return a - b; });
        fillSelect(knobSelects[k], sorted, state.cfg[k]);
        if (sorted.indexOf(state.cfg[k]) < 0) state.cfg[k] = sorted[0];
      });
    }

    function render() {
      const recs = deviceRecords();
      const prob = state.problem;
      const mine = prob ? recs.list.filter(function (x) { return problemKey(x.row) === problemKey(prob); }) : [];
      const hit = mine.filter(function (x) { return cfgKey(x.row) === cfgKey(state.cfg); })[0];
      const pick = mine.filter(function (x) { return x.pick; })[0];
      const inList = CONFIGS.some(function (t) { return cfgKey(fromTuple(t)) === cfgKey(state.cfg); });
      const dtype = prob ? prob.dtype : "float16";
      const elem = ELEMENT_BYTES[dtype];
      const smem = state.cfg.num_stages * (state.cfg.block_m + state.cfg.block_n) * state.cfg.block_k * elem;
      const ceiling = state.slug ? ceilingRate(d, state.slug, dtype) : null;

      if (!state.slug) {
        set("tflops", "no measurement on any device");
        set("range", "");
        set("of-cublas", "");
      } else if (!hit) {
        set("tflops", "no measurement");
        set("range", "");
        set("of-cublas", prob
          ? "This configuration has no measurement on " + d.devices[state.slug] + " for this problem" + (recs.swept ? "." : ": this device has no data from lesson 13's configuration sweep.")
          : "This device has no matmul measurements.");
      } else if (hit.row.failure) {
        set("tflops", "did not run");
        set("range", "");
        set("of-cublas", "The sweep recorded: " + hit.row.failure + ".");
      } else {
        const t = hit.row.time_s;
        const rate = hit.row.flops / t.p50;
        set("tflops", (rate / 1e12).toFixed(0) + " TFLOP/s", rate);
        set("range", " (20th–80th percentile " + (hit.row.flops / t.p80 / 1e12).toFixed(0) + "–" + (hit.row.flops / t.p20 / 1e12).toFixed(0) + ")");
        if (ceiling) set("of-cublas", (100 * rate / ceiling.rate).toFixed(0) + "% of this device's cuBLAS rate at " + ceiling.size + " " + dtype + " (the run's ceiling).", rate / ceiling.rate);
        else set("of-cublas", "");
      }
      set("in-list", inList ? "yes" : "no");
      set("pick", pick ? cfgText(pick.row) : "not recorded");
      set("is-pick", !pick ? "unknown" : cfgKey(pick.row) === cfgKey(state.cfg) ? "this is it" : "not this one");
      set("smem", (smem / 1024).toFixed(0) + " KiB (" + smem.toLocaleString("en-US") + " bytes)", smem);
      set("elem", String(elem));
      set("measured-count", String(CONFIGS.filter(function (t) {
        return mine.some(function (x) { return cfgKey(x.row) === cfgKey(fromTuple(t)) && !x.row.failure; });
      }).length));
      set("list-count", String(CONFIGS.length));
      const fit = hit && !hit.row.failure ? perSM(hit.row, recs.capability) : null;
      if (fit) set("per-sm", fit.all + " (registers allow " + fit.registers + ", shared memory " + fit.shared + ")", fit.all);
      else if (!hit) set("per-sm", "no measurement");
      else if (hit.row.failure) set("per-sm", "none: it did not run");
      else set("per-sm", "the run did not record this configuration's registers and shared memory");
      pickBtn.disabled = !pick;
      el.setAttribute("data-measured", hit && !hit.row.failure ? "true" : "false");

      tableBody.textContent = "";
      const ranked = mine.slice().sort(function (a, b) {
        const ra = a.row.failure ? -1 : a.row.flops / a.row.time_s.p50;
        const rb = b.row.failure ? -1 : b.row.flops / b.row.time_s.p50;
        return rb - ra;
      });
      ranked.forEach(function (x) {
        const r = x.row;
        const sel = cfgKey(r) === cfgKey(state.cfg);
        const tr = h("tr", { "data-config": cfgKey(r), class: sel ? "book-widget__row--on" : "" }, [
          h("td", { text: r.block_m + "×" + r.block_n + "×" + r.block_k }),
          h("td", { text: String(r.num_warps) }),
          h("td", { text: String(r.num_stages) }),
          h("td", { text: r.failure ? "failed" : (r.flops / r.time_s.p50 / 1e12).toFixed(0) }),
          h("td", { text: x.pick ? "pick" : "" }),
        ]);
        if (sel) tr.setAttribute("aria-current", "true");
        tableBody.appendChild(tr);
      });
      table.hidden = !ranked.length;

      const sources = {};
      mine.forEach(function (x) { sources[x.source] = true; });
      if (!state.slug) sourceNote.textContent = "No device in figures/data has matmul measurements.";
      else if (sources.matmul_configs) sourceNote.textContent = "From lesson 13's configuration sweep (figures/data/" + state.slug + "/matmul_configs.json); the pick is the config the autotuner chose in the same run.";
      else sourceNote.textContent = (recs.swept ? "Lesson 13's configuration sweep did not run this problem" : "This device has no data from lesson 13's configuration sweep") + ", so only the autotuner's pick has a measurement, " +
        (sources.matmul_grouped ? "from lesson 09's program-order run (figures/data/" + state.slug + "/matmul_grouped.json, grouped order)." : "and none is recorded here.") +
        " Every other configuration has none.";
    }

    deviceSelect.addEventListener("change", function () {
      state.slug = deviceSelect.value;
      setupDevice();
      render();
    });
    problemSelect.addEventListener("change", function () {
      const recs = deviceRecords();
      state.problem = problems(recs).filter(function (p) { return problemKey(p) === problemSelect.value; })[0] || null;
      render();
    });
    KNOBS.forEach(function (k) {
      knobSelects[k].addEventListener("change", function () {
        state.cfg[k] = parseInt(knobSelects[k].value, 10);
        render();
      });
    });
    pickBtn.addEventListener("click", function () {
      const recs = deviceRecords();
      const pick = recs.list.filter(function (x) { return x.pick && state.problem && problemKey(x.row) === problemKey(state.problem); })[0];
      if (!pick) return;
      KNOBS.forEach(function (k) {
        state.cfg[k] = pick.row[k];
        knobSelects[k].value = String(pick.row[k]);
      });
      render();
    });

    // Start on the first device with a measurement, else the first device.
    state.slug = slugs.filter(function (s) { return records(d, s).list.length; })[0] || slugs[0] || null;
    if (state.slug) deviceSelect.value = state.slug;
    deviceSelect.disabled = !slugs.length;
    setupDevice();
    render();
  });
})();
