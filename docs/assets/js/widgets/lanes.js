/* Widget "lanes" (lesson 02): which thread (warp, lane) holds which element of
 * tl.arange(0, BLOCK) in the blocked layout Triton gives a 1-D tile (TritonGPU's coalescing
 * pass; lesson 03's TTGIR shows sizePerThread = [4] for fp32, BLOCK 1024, 4 warps):
 *   sizePerThread = min(16 bytes / element size, max(1, BLOCK / threads)), 1 without a
 *   proof of contiguity; lanes then warps take neighbouring runs; the pattern wraps round
 *   the tile (a tile smaller than one pass is replicated: t and t + BLOCK hold the same).
 * Outputs carry data-out attributes; tests/site/test_widgets.py redoes the arithmetic.
 */
(function () {
  "use strict";
  const W = window.BookWidgets;
  const h = W.h;
  const BLOCKS = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096];
  const WARPS = [1, 2, 4, 8];
  const DTYPES = [
    ["4", "float32 (4 bytes)"],
    ["2", "float16 / bfloat16 (2 bytes)"],
    ["1", "int8 / float8 (1 byte)"],
    ["8", "float64 (8 bytes)"],
  ];
  const SECTOR = 32; // bytes: the unit in which memory moves between L2 and the SMs

  function layout(block, warps, bytes, proven) {
    const threads = 32 * warps;
    const spt = proven ? Math.min(16 / bytes, Math.max(1, block / threads)) : 1;
    const footprint = spt * threads;
    const replicated = block < footprint;
    return {
      threads: threads,
      spt: spt,
      footprint: footprint,
      replicated: replicated,
      passes: replicated ? 1 : block / footprint,
      perThread: replicated ? spt : block / threads,
      copies: replicated ? footprint / block : 1,
      warpElems: Math.min(32 * spt, block),
    };
  }

  function where(L, block, i) {
    if (L.replicated) {
      // spt is 1 here: thread t holds element t % BLOCK.
      const holders = [];
      for (let t = i; t < L.threads; t += block) holders.push(t);
      return { pass: 0, thread: i, register: 0, holders: holders };
    }
    const pass = Math.floor(i / L.footprint);
    const within = i % L.footprint;
    const t = Math.floor(within / L.spt);
    return { pass: pass, thread: t, register: pass * L.spt + (within % L.spt), holders: [t] };
  }

  function runs(L, block, t) {
    // The elements thread t holds, as "a … b" runs.
    const out = [];
    if (L.replicated) return [String(t % block)];
    for (let r = 0; r < L.passes; r++) {
      const a = r * L.footprint + t * L.spt;
      out.push(L.spt === 1 ? String(a) : a + " … " + (a + L.spt - 1));
    }
    return out;
  }

  W.register("lanes", function mount(el) {
    const state = { block: 1024, warps: 4, bytes: 4, proven: true, i: 1000 };

    function select(values, current, key) {
      const s = h("select", { "data-in": key });
      values.forEach(function (v) {
        const value = Array.isArray(v) ? v[0] : String(v);
        const opt = h("option", { value: value, text: Array.isArray(v) ? v[1] : String(v) });
        if (value === String(current)) opt.selected = true;
        s.appendChild(opt);
      });
      return s;
    }
    const blockSelect = select(BLOCKS, state.block, "block");
    const warpSelect = select(WARPS, state.warps, "num_warps");
    const dtypeSelect = select(DTYPES, state.bytes, "dtype");
    const provenBox = h("input", { type: "checkbox", "data-in": "proven" });
    provenBox.checked = state.proven;
    const iInput = h("input", { type: "number", min: 0, max: state.block - 1, step: 1, value: state.i, "data-in": "element", inputmode: "numeric" });

    const prevBtn = h("button", { type: "button", class: "book-widget__button", "data-action": "prev", text: "◀ i − 1" });
    const nextBtn = h("button", { type: "button", class: "book-widget__button", "data-action": "next", text: "i + 1 ▶" });

    const out = {};
    function o(name) {
      out[name] = h("span", { "data-out": name });
      return out[name];
    }

    const whereP = h("p", { class: "book-widget__numbers book-widget__where", "aria-live": "polite" });
    const grid = h("div", { class: "book-widget__warps", role: "img" });
    const loadCaption = h("p", { class: "book-widget__numbers" });
    const strip = h("div", { class: "book-widget__strip", role: "img" });

    el.appendChild(h("p", { class: "book-widget__title", text: "Which thread holds which element" }));
    el.appendChild(h("div", { class: "book-widget__controls" }, [
      W.field("BLOCK", blockSelect),
      W.field("num_warps", warpSelect),
      W.field("dtype", dtypeSelect),
      W.field("Element i", iInput),
      h("div", { class: "book-widget__buttons" }, [prevBtn, nextBtn]),
    ]));
    el.appendChild(h("label", { class: "book-widget__check" }, [
      provenBox,
      " the compiler can prove the offsets contiguous and 16-byte aligned (as for pid * BLOCK + tl.arange(0, BLOCK))",
    ]));
    el.appendChild(h("p", { class: "book-widget__numbers" }, [
      "Threads = 32 × num_warps = ", o("threads"), ". Each thread takes ", o("ept"),
      " neighbouring element(s) at a time (sizePerThread); one pass of all threads covers ", o("footprint"),
      " elements, so each thread makes ", o("passes"), " load(s) per tl.load and holds ", o("per-thread"), " element(s) in all.",
    ]));
    el.appendChild(h("p", { class: "book-widget__numbers" }, ["TTGIR: ", h("code", {}, [o("layout")])]));
    el.appendChild(whereP);
    el.appendChild(grid);
    el.appendChild(loadCaption);
    el.appendChild(strip);
    el.appendChild(h("p", { class: "book-widget__note" }, [
      "Each thread takes 16 bytes of neighbouring elements (fewer if the tile is small), lane " +
      "after lane, warp after warp, wrapping round the tile; lesson 03 reads it in the TTGIR. " +
      "Untick the box for what the compiler falls back to without a proof of contiguity.",
    ]));

    function render() {
      const L = layout(state.block, state.warps, state.bytes, state.proven);
      const i = state.i;
      const w = where(L, state.block, i);
      const warp = Math.floor(w.thread / 32);
      const lane = w.thread % 32;
      iInput.max = state.block - 1;
      prevBtn.disabled = i === 0;
      nextBtn.disabled = i === state.block - 1;
      out.threads.textContent = L.threads;
      out.ept.textContent = L.spt;
      out.footprint.textContent = L.footprint;
      out.passes.textContent = L.passes;
      out["per-thread"].textContent = L.perThread;
      out.layout.textContent = "#ttg.blocked<{sizePerThread = [" + L.spt + "], threadsPerWarp = [32], warpsPerCTA = [" +
        state.warps + "], order = [0]}>";
      el.setAttribute("data-replicated", L.replicated ? "true" : "false");

      // Where element i lives.
      whereP.textContent = "";
      const named = w.holders.map(function (t) { return "warp " + Math.floor(t / 32) + ", lane " + (t % 32); });
      whereP.append(
        "Element " + i + " → thread " + w.thread + ": ",
        h("strong", { "data-out": "where", text: "warp " + warp + ", lane " + lane + ", register " + w.register }),
        ". That thread holds elements " + runs(L, state.block, w.thread).join(" and ") + ".",
      );
      if (L.replicated) {
        whereP.append(
          " BLOCK = " + state.block + " is smaller than one pass of the layout (" + L.footprint + " elements), so the pattern " +
          "repeats across the threads: ",
          h("span", { "data-out": "copies", text: String(L.copies) }),
          " threads hold a copy of each element (here " + named.join("; ") + "), and a masked store writes it once.",
        );
      }
      [["thread", w.thread], ["warp", warp], ["lane", lane], ["register", w.register]].forEach(function (kv) {
        whereP.appendChild(h("span", { "data-out": kv[0], hidden: "", text: String(kv[1]) }));
      });

      // The threads: warps of 32 lanes, the holders of element i marked.
      grid.textContent = "";
      for (let wi = 0; wi < state.warps; wi++) {
        const row = h("div", { class: "book-widget__warp" }, [h("span", { class: "book-widget__warp-label", text: "warp " + wi })]);
        const cells = h("div", { class: "book-widget__lanes" });
        for (let l = 0; l < 32; l++) {
          const on = w.holders.indexOf(wi * 32 + l) >= 0;
          cells.appendChild(h("span", { class: "book-widget__cell book-widget__cell--" + (on ? "valid" : "lane") }));
        }
        row.appendChild(cells);
        grid.appendChild(row);
      }
      grid.setAttribute("aria-label", state.warps + " warps of 32 lanes; element " + i + " is held by " + named.join("; "));

      // One warp-wide load: the elements the warp's instruction covers, lane by lane.
      const first = L.replicated ? (warp * 32) % state.block : w.pass * L.footprint + warp * 32 * L.spt;
      const span = L.warpElems * state.bytes;
      loadCaption.textContent = "";
      loadCaption.append(
        "One load instruction of warp " + warp + (L.passes > 1 ? " (pass " + w.pass + ")" : "") + ": each lane loads ",
        h("span", { "data-out": "lane-bytes", text: String(L.spt * state.bytes) }),
        " bytes, neighbour next to neighbour, elements " + first + " … " + (first + L.warpElems - 1) + ": ",
        h("span", { "data-out": "span", text: String(span) }),
        " contiguous bytes in ",
        h("span", { "data-out": "sectors", text: String(Math.ceil(span / SECTOR)) }),
        span % SECTOR === 0 ? " sectors of 32 bytes, every byte used." : " sector of 32 bytes, part of it unused.",
      );
      if (!state.proven && state.bytes < 16) {
        loadCaption.append(
          " Without the proof each lane loads one element: where the addresses really are neighbours the " +
          "hardware still merges them into sectors, but the tile takes " + (16 / state.bytes) + "× as many load " +
          "instructions as with 16-byte loads; where they are not, each lane may touch a sector of its own.",
        );
      }
      strip.textContent = "";
      const lanesInLoad = L.warpElems / L.spt;
      for (let l = 0; l < lanesInLoad; l++) {
        const group = h("span", { class: "book-widget__run" });
        for (let k = 0; k < L.spt; k++) {
          const e = first + l * L.spt + k;
          group.appendChild(h("span", { class: "book-widget__cell book-widget__cell--" + (e === i ? "valid" : "lane") }));
        }
        strip.appendChild(group);
      }
      strip.setAttribute("aria-label", "Warp " + warp + "'s load: " + lanesInLoad + " lanes of " + L.spt +
        " element(s) each, " + span + " bytes; element " + i + " is marked");
    }

    function readI(clamp) {
      const v = parseInt(iInput.value, 10);
      if (!Number.isFinite(v)) {
        if (clamp) iInput.value = state.i;
        return;
      }
      const c = Math.min(state.block - 1, Math.max(0, v));
      if (c !== v && !clamp) return;
      if (clamp) iInput.value = c;
      state.i = c;
      render();
    }

    blockSelect.addEventListener("change", function () {
      state.block = parseInt(blockSelect.value, 10);
      if (state.i > state.block - 1) {
        state.i = state.block - 1;
        iInput.value = state.i;
      }
      render();
    });
    warpSelect.addEventListener("change", function () {
      state.warps = parseInt(warpSelect.value, 10);
      render();
    });
    dtypeSelect.addEventListener("change", function () {
      state.bytes = parseInt(dtypeSelect.value, 10);
      render();
    });
    provenBox.addEventListener("change", function () {
      state.proven = provenBox.checked;
      render();
    });
    iInput.addEventListener("input", function () { readI(false); });
    function move(d) {
      state.i = Math.min(state.block - 1, Math.max(0, state.i + d));
      iInput.value = state.i;
      render();
    }
    prevBtn.addEventListener("click", function () { move(-1); });
    nextBtn.addEventListener("click", function () { move(1); });
    iInput.addEventListener("change", function () { readI(true); });

    render();
  });
})();
