/* Widget "lifecycle" (lesson 02): one program's life cycle.
 *
 * The reader picks N and BLOCK; the grid has ceil(N / BLOCK) programs. For the chosen
 * program it steps through pointers -> mask -> load -> compute -> store and draws the
 * program's BLOCK elements (positions of its tile), valid ones filled and masked ones
 * hatched (and named in the legend and the text, not told apart by colour alone). At
 * N = 0 the grid has no program at all, and the widget says so instead of drawing one.
 * Every number shown sits in an element with a data-out attribute, which the browser
 * tests read.
 */
(function () {
  "use strict";
  const W = window.BookWidgets;
  const h = W.h;
  const BLOCKS = [16, 32, 64, 128, 256, 512, 1024];
  const N_MIN = 0;  // an empty input: a grid of 0 programs
  const N_MAX = 5000;
  const STEPS = [
    { key: "pointers", name: "Pointers" },
    { key: "mask", name: "Mask" },
    { key: "load", name: "Load" },
    { key: "compute", name: "Compute" },
    { key: "store", name: "Store" },
  ];

  function fmt(n) {
    return String(n);
  }

  W.register("lifecycle", function mount(el) {
    const state = { n: 1000, block: 256, pid: 3, step: 0 };

    const nInput = h("input", { type: "number", min: N_MIN, max: N_MAX, step: 1, value: state.n, "data-in": "n", inputmode: "numeric" });
    const blockSelect = h("select", { "data-in": "block" });
    BLOCKS.forEach(function (b) {
      const o = h("option", { value: b, text: fmt(b) });
      if (b === state.block) o.selected = true;
      blockSelect.appendChild(o);
    });
    const pidInput = h("input", { type: "range", min: 0, max: 0, step: 1, value: 0, "data-in": "program" });
    const pidShown = h("output", { "data-out": "program", "aria-live": "polite" });

    const out = {};
    function o(name) {
      out[name] = h("span", { "data-out": name });
      return out[name];
    }

    const backBtn = h("button", { type: "button", class: "book-widget__button", "data-action": "back", text: "◀ Back" });
    const stepBtn = h("button", { type: "button", class: "book-widget__button", "data-action": "step", text: "Step ▶" });
    const stepList = h("ol", { class: "book-widget__steps", "aria-label": "Stages of the program" });
    const stepItems = STEPS.map(function (s, i) {
      const li = h("li", { "data-step": s.key }, [(i + 1) + ". " + s.name]);
      stepList.appendChild(li);
      return li;
    });
    const stepText = h("p", { class: "book-widget__explain", "data-out": "explain", "aria-live": "polite" });
    const cellsEl = h("div", { class: "book-widget__cells", role: "img", "data-out": "elements-drawn" });

    const legend = h("ul", { class: "book-widget__legend" }, [
      h("li", {}, [h("span", { class: "book-widget__swatch book-widget__cell--plain", "aria-hidden": "true" }), "element (offset not yet checked)"]),
      h("li", {}, [h("span", { class: "book-widget__swatch book-widget__cell--valid", "aria-hidden": "true" }), "valid element: offset < N, loaded and stored"]),
      h("li", {}, [h("span", { class: "book-widget__swatch book-widget__cell--masked", "aria-hidden": "true" }), "masked element (hatched): offset ≥ N, no load, no store"]),
    ]);

    el.appendChild(h("p", { class: "book-widget__title", text: "One program's life cycle" }));
    el.appendChild(h("div", { class: "book-widget__controls" }, [
      W.field("N (elements)", nInput),
      W.field("BLOCK", blockSelect),
      W.field("Program id", pidInput),
      pidShown,
    ]));
    el.appendChild(h("p", { class: "book-widget__numbers" }, [
      "Grid: ", o("programs"), " programs × BLOCK = ", o("elements"), " tile elements, of which ",
      o("masked"), " are masked (programs × BLOCK − N).",
    ]));
    const programLine = h("p", { class: "book-widget__numbers" }, [
      "Program ", o("pid"), " covers offsets ", o("first"), " … ", o("last"), ": ",
      o("valid"), " valid elements, ", o("program-masked"), " masked."
    ]);
    const stepper = h("div", { class: "book-widget__stepper" }, [backBtn, stepBtn, stepList]);
    const emptyText = h("p", { class: "book-widget__explain", "data-out": "empty", "aria-live": "polite" });
    el.appendChild(programLine);
    el.appendChild(stepper);
    el.appendChild(stepText);
    el.appendChild(emptyText);
    el.appendChild(cellsEl);
    el.appendChild(legend);

    function compute() {
      const programs = Math.ceil(state.n / state.block);
      if (state.pid > programs - 1) state.pid = Math.max(0, programs - 1);
      const first = state.pid * state.block;
      const last = first + state.block - 1;
      const valid = Math.max(0, Math.min(state.block, state.n - first));
      return {
        programs: programs,
        elements: programs * state.block,
        masked: programs * state.block - state.n,
        first: first,
        last: last,
        valid: valid,
        pmasked: state.block - valid,
      };
    }

    function explain(r) {
      const s = STEPS[state.step].key;
      const p = state.pid;
      if (s === "pointers") {
        return "offsets = pid * BLOCK + tl.arange(0, BLOCK) = " + p + " × " + state.block + " + (0 … " +
          (state.block - 1) + ") = " + r.first + " … " + r.last + ". Adding them to x_ptr gives " +
          state.block + " addresses, one per element of the tile; nothing has been read yet.";
      }
      if (s === "mask") {
        return "mask = offsets < N (N = " + state.n + "): " + r.valid + " elements are true and " + r.pmasked +
          " false" + (r.pmasked ? ", the elements whose offsets run past the end of the data." : ": this tile is full.");
      }
      if (s === "load") {
        return "tl.load(x_ptr + offsets, mask=mask) reads " + r.valid + " elements. The " + r.pmasked +
          " masked elements touch no memory; their value is the `other` argument (undefined if none is given).";
      }
      if (s === "compute") {
        return "The arithmetic runs on all " + state.block + " elements at once, masked ones included: their results are simply never stored.";
      }
      return "tl.store(out_ptr + offsets, y, mask=mask) writes " + r.valid + " elements, offsets " + r.first + " … " +
        Math.min(r.last, state.n - 1) + ". The " + r.pmasked + " masked elements write nothing.";
    }

    let drawnBlock = 0;
    function drawCells(r) {
      if (drawnBlock !== state.block) {
        cellsEl.textContent = "";
        for (let i = 0; i < state.block; i++) cellsEl.appendChild(h("span", { class: "book-widget__cell" }));
        drawnBlock = state.block;
      }
      const checked = state.step > 0;
      const cells = cellsEl.children;
      for (let i = 0; i < cells.length; i++) {
        const kind = !checked ? "plain" : i < r.valid ? "valid" : "masked";
        cells[i].className = "book-widget__cell book-widget__cell--" + kind;
      }
      cellsEl.setAttribute("data-valid", r.valid);
      cellsEl.setAttribute("aria-label", checked
        ? "Elements of program " + state.pid + "'s tile: " + r.valid + " valid, " + r.pmasked + " masked"
        : "Elements of program " + state.pid + "'s tile: " + state.block + ", not yet checked against N");
    }

    // N = 0: no program runs, so there is no program to follow, no stage and no tile.
    function renderEmpty(r) {
      out.programs.textContent = r.programs;
      out.elements.textContent = r.elements;
      out.masked.textContent = r.masked;
      pidInput.max = 0;
      pidInput.value = 0;
      pidInput.disabled = true;
      pidInput.setAttribute("aria-valuetext", "no program");
      pidShown.textContent = "no program";
      emptyText.textContent = "N = 0: the grid is ⌈0 / " + state.block + "⌉ = 0 programs. Nothing is launched, " +
        "so nothing is loaded, masked or stored; the book's wrapper (kernels/vector_add.py) returns " +
        "the empty output before launching.";
      el.setAttribute("data-step", "none");
      cellsEl.textContent = "";
      drawnBlock = 0;
    }

    function render() {
      const r = compute();
      const empty = r.programs === 0;
      [programLine, stepper, stepText, cellsEl, legend].forEach(function (e) { e.hidden = empty; });
      emptyText.hidden = !empty;
      if (empty) {
        renderEmpty(r);
        return;
      }
      pidInput.disabled = false;
      pidInput.max = r.programs - 1;
      pidInput.value = state.pid;
      pidInput.setAttribute("aria-valuetext", "program " + state.pid + " of " + r.programs);
      pidShown.textContent = "pid " + state.pid + " (programs 0 … " + (r.programs - 1) + ")";
      out.programs.textContent = r.programs;
      out.elements.textContent = r.elements;
      out.masked.textContent = r.masked;
      out.pid.textContent = state.pid;
      out.first.textContent = r.first;
      out.last.textContent = r.last;
      out.valid.textContent = r.valid;
      out["program-masked"].textContent = r.pmasked;
      stepItems.forEach(function (li, i) {
        if (i === state.step) li.setAttribute("aria-current", "step");
        else li.removeAttribute("aria-current");
      });
      el.setAttribute("data-step", STEPS[state.step].key);
      backBtn.disabled = state.step === 0;
      stepBtn.disabled = state.step === STEPS.length - 1;
      stepText.textContent = explain(r);
      drawCells(r);
    }

    function readN(clamp) {
      const v = parseInt(nInput.value, 10);
      if (!Number.isFinite(v)) {
        if (clamp) nInput.value = state.n;
        return;
      }
      const c = Math.min(N_MAX, Math.max(N_MIN, v));
      if (c !== v && !clamp) return;
      if (clamp) nInput.value = c;
      state.n = c;
      render();
    }

    nInput.addEventListener("input", function () { readN(false); });
    nInput.addEventListener("change", function () { readN(true); });
    blockSelect.addEventListener("change", function () {
      state.block = parseInt(blockSelect.value, 10);
      render();
    });
    pidInput.addEventListener("input", function () {
      state.pid = parseInt(pidInput.value, 10) || 0;
      render();
    });
    backBtn.addEventListener("click", function () {
      if (state.step > 0) state.step -= 1;
      render();
      if (backBtn.disabled) stepBtn.focus();
    });
    stepBtn.addEventListener("click", function () {
      if (state.step < STEPS.length - 1) state.step += 1;
      render();
      if (stepBtn.disabled) backBtn.focus();
    });

    render();
  });
})();
