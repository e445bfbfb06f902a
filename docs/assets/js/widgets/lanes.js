/* Widget "lanes" (lesson 02): which warp and lane hold which element of tl.arange(0, BLOCK).
 *
 * A modest model, labelled as such: the simple blocked layout of a 1-D tile, with
 * sizePerThread = BLOCK / (32 * num_warps) contiguous elements per thread. Element i sits
 * in thread t = i // ept: warp t // 32, lane t % 32, register i % ept. The compiler may
 * choose another size per thread (lesson 03 reads the real layout in the TTGIR). When
 * BLOCK is smaller than the number of threads the layout wraps and threads hold copies;
 * the widget says so instead of inventing a mapping. Outputs carry data-out attributes.
 */
(function () {
  "use strict";
  const W = window.BookWidgets;
  const h = W.h;
  const BLOCKS = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096];
  const WARPS = [1, 2, 4, 8];

  W.register("lanes", function mount(el) {
    const state = { block: 1024, warps: 4, i: 1000 };

    function select(values, current, key) {
      const s = h("select", { "data-in": key });
      values.forEach(function (v) {
        const opt = h("option", { value: v, text: String(v) });
        if (v === current) opt.selected = true;
        s.appendChild(opt);
      });
      return s;
    }
    const blockSelect = select(BLOCKS, state.block, "block");
    const warpSelect = select(WARPS, state.warps, "num_warps");
    const iInput = h("input", { type: "number", min: 0, max: state.block - 1, step: 1, value: state.i, "data-in": "element", inputmode: "numeric" });

    const prevBtn = h("button", { type: "button", class: "book-widget__button", "data-action": "prev", text: "◀ i − 1" });
    const nextBtn = h("button", { type: "button", class: "book-widget__button", "data-action": "next", text: "i + 1 ▶" });

    const out = {};
    function o(name) {
      out[name] = h("span", { "data-out": name });
      return out[name];
    }

    const where = h("p", { class: "book-widget__numbers book-widget__where", "aria-live": "polite" });
    const grid = h("div", { class: "book-widget__warps", role: "img" });

    el.appendChild(h("p", { class: "book-widget__title", text: "Which lane holds which element" }));
    el.appendChild(h("div", { class: "book-widget__controls" }, [
      W.field("BLOCK", blockSelect),
      W.field("num_warps", warpSelect),
      W.field("Element i", iInput),
      h("div", { class: "book-widget__buttons" }, [prevBtn, nextBtn]),
    ]));
    el.appendChild(h("p", { class: "book-widget__numbers" }, [
      "Threads = 32 × num_warps = ", o("threads"), "; elements per thread = max(1, BLOCK / threads) = ", o("ept"), ".",
    ]));
    el.appendChild(where);
    el.appendChild(grid);
    el.appendChild(h("p", { class: "book-widget__note" }, [
      "A model, not the compiler's word: this is the simple blocked layout for a 1-D tile with " +
      "sizePerThread = BLOCK / (32 · num_warps), each thread holding a contiguous run of elements. " +
      "The compiler may choose a different size per thread, for example 4 elements so that each " +
      "thread makes 16-byte vector loads, wrapping round the tile several times; lesson 03 shows " +
      "the layout it really chose, in the TTGIR.",
    ]));

    function render() {
      const threads = 32 * state.warps;
      const ept = Math.max(1, state.block / threads);
      const wraps = state.block < threads;
      iInput.max = state.block - 1;
      prevBtn.disabled = wraps || state.i === 0;
      nextBtn.disabled = wraps || state.i === state.block - 1;
      out.threads.textContent = threads;
      out.ept.textContent = ept;
      el.setAttribute("data-replicated", wraps ? "true" : "false");
      where.textContent = "";
      grid.textContent = "";
      if (wraps) {
        where.appendChild(h("span", { "data-out": "where", text: "replicated" }));
        where.appendChild(document.createTextNode(
          ": BLOCK = " + state.block + " is smaller than the " + threads + " threads, so the layout " +
          "(one element per thread, " + threads + " in all) wraps round the tile and several threads " +
          "hold copies of the same element. Which copies is the compiler's choice; this model does not guess it."));
        grid.setAttribute("aria-label", "No single owner: the elements are replicated across threads");
        return;
      }
      const i = state.i;
      const t = Math.floor(i / ept);
      const warp = Math.floor(t / 32);
      const lane = t % 32;
      const reg = i % ept;
      where.append(
        "Element " + i + " → thread " + t + ": ",
        h("strong", { "data-out": "where", text: "warp " + warp + ", lane " + lane + ", register " + reg }),
        ". That thread holds elements " + t * ept + " … " + (t * ept + ept - 1) + ".",
      );
      [["thread", t], ["warp", warp], ["lane", lane], ["register", reg]].forEach(function (kv) {
        where.appendChild(h("span", { "data-out": kv[0], hidden: "", text: String(kv[1]) }));
      });
      for (let w = 0; w < state.warps; w++) {
        const row = h("div", { class: "book-widget__warp" }, [h("span", { class: "book-widget__warp-label", text: "warp " + w })]);
        const cells = h("div", { class: "book-widget__lanes" });
        for (let l = 0; l < 32; l++) {
          const on = w === warp && l === lane;
          cells.appendChild(h("span", { class: "book-widget__cell book-widget__cell--" + (on ? "valid" : "lane") }));
        }
        row.appendChild(cells);
        grid.appendChild(row);
      }
      grid.setAttribute("aria-label", state.warps + " warps of 32 lanes; element " + i +
        " is in warp " + warp + ", lane " + lane);
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
