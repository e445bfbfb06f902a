/* Widget "triton-decision" (lesson 01): is Triton the right tool for this operation?
 *
 * Implements exactly the decision table of lesson 01 ("A decision rule"): read from the
 * top, the first row that matches gives the tool. The inputs are the table's four
 * questions: share of step time (a percentage: under 1, 1 to under 10, 10 or more), what
 * the op is (library op / chain of torch ops / custom), shapes (regular / irregular) and
 * what bounds it (bandwidth / compute). The browser test checks every combination against
 * a Python copy of the rule, and that copy against the table on the page.
 *
 * Beside the answer: the most the whole step can gain from this op, 1 / (1 - share), the
 * limit if the op took no time at all (Amdahl's law); at 100 % the op is the whole step
 * and there is no such limit, which the sentence says in words. A share outside 0 to
 * 100 % is refused with a message beside the field (the answer stays on the last good
 * share, which the field gets back when it is left). Outputs carry data-out attributes.
 */
(function () {
  "use strict";
  const W = window.BookWidgets;
  const h = W.h;

  // The table, row by row: a field left out matches any answer.
  const RULES = [
    { row: 1, share: "under-1", use: "skip",
      why: "Even deleting the op would save under 1 % of the step; the effort pays off better elsewhere." },
    { row: 2, share: "1-plus", op: "library", shapes: "regular", use: "library",
      why: "Vendor kernels are tuned for each GPU at the shapes everyone uses; call them (torch.matmul, scaled_dot_product_attention)." },
    { row: 3, share: "1-plus", op: "library", shapes: "irregular", use: "Triton",
      why: "Libraries are tuned for the common shapes; a kernel autotuned for yours can beat them. Time the library at your shapes first." },
    { row: 4, share: "1-plus", op: "chain", use: "torch.compile",
      why: "Inductor fuses chains of torch ops into generated Triton kernels for you; write your own only if the profile still shows a gap." },
    { row: 5, share: "1-plus", op: "custom", bound: "bandwidth", use: "Triton",
      why: "Triton's best case: one fused pass over memory in a short kernel, running near copy bandwidth." },
    { row: 6, share: "1-to-10", op: "custom", bound: "compute", use: "torch.compile",
      why: "A compute-bound kernel needs tl.dot tiling and tuning before it pays; at under a tenth of the step, try the compiler's code first." },
    { row: 7, share: "10-plus", op: "custom", bound: "compute", use: "Triton",
      why: "Big enough to repay a tiled tl.dot kernel and its tuning; the last per cent of peak may still need CUDA." },
  ];

  function shareMatches(band, share) {
    if (band === "under-1") return share < 1;
    if (band === "1-plus") return share >= 1;
    if (band === "1-to-10") return share >= 1 && share < 10;
    if (band === "10-plus") return share >= 10;
    return false;
  }

  function decide(share, op, shapes, bound) {
    return RULES.find(function (r) {
      return shareMatches(r.share, share) &&
        (r.op === undefined || r.op === op) &&
        (r.shapes === undefined || r.shapes === shapes) &&
        (r.bound === undefined || r.bound === bound);
    });
  }

  function select(key, options, current) {
    const s = h("select", { "data-in": key });
    options.forEach(function (o) {
      const opt = h("option", { value: o[0], text: o[1] });
      if (o[0] === current) opt.selected = true;
      s.appendChild(opt);
    });
    return s;
  }

  W.register("triton-decision", function mount(el) {
    const state = { share: 15, op: "custom", shapes: "irregular", bound: "bandwidth" };

    const shareInput = h("input", { type: "number", min: 0, max: 100, step: 0.5, value: state.share, "data-in": "share", inputmode: "decimal" });
    const opSelect = select("op", [
      ["library", "library op (matmul, attention, convolution)"],
      ["chain", "chain of torch ops"],
      ["custom", "custom (new maths or fusion)"],
    ], state.op);
    const shapesSelect = select("shapes", [["regular", "regular"], ["irregular", "irregular"]], state.shapes);
    const boundSelect = select("bound", [["bandwidth", "bandwidth"], ["compute", "compute"]], state.bound);

    const out = {};
    function o(name, cls) {
      out[name] = h("span", { "data-out": name, class: cls || "" });
      return out[name];
    }

    el.appendChild(h("p", { class: "book-widget__title", text: "Is Triton the right tool?" }));
    el.appendChild(h("div", { class: "book-widget__controls" }, [
      W.field("Share of step time (%)", shareInput),
      W.field("The op", opSelect),
      W.field("Shapes", shapesSelect),
      W.field("Bound by", boundSelect),
    ]));
    el.appendChild(h("p", { class: "book-widget__answer", "aria-live": "polite" }, [
      "Use: ", o("use", "book-widget__verdict"), " (row ", o("row"), " of the table).",
    ]));
    el.appendChild(h("p", { class: "book-widget__explain" }, [o("why")]));
    const shareError = h("p", { class: "book-widget__error", "data-out": "share-error", id: "book-widget-share-error", "aria-live": "polite" });
    shareError.hidden = true;
    shareInput.setAttribute("aria-describedby", shareError.id);
    el.appendChild(shareError);
    const before = h("span", {});
    const after = h("span", {});
    el.appendChild(h("p", { class: "book-widget__numbers", "data-out": "bound-sentence" }, [
      before, o("step-bound"), after,
    ]));

    function readShare() {
      const v = parseFloat(shareInput.value);
      if (!Number.isFinite(v) || v < 0 || v > 100) return null;
      return v;
    }

    // Beside the field: why a share was not taken (typing), or that it was put back (left).
    function complain(left) {
      const typed = shareInput.value.trim();
      const what = typed === "" ? "An empty share" : typed + " %";
      shareError.textContent = what + " is not a share of the step: it lies between 0 and 100 %. " +
        (left ? "Kept " + state.share + " %." : "The answer below is still for " + state.share + " %.");
      shareError.hidden = false;
      shareInput.setAttribute("aria-invalid", "true");
    }
    function accept() {
      shareError.hidden = true;
      shareError.textContent = "";
      shareInput.removeAttribute("aria-invalid");
    }

    function render() {
      const r = decide(state.share, state.op, state.shapes, state.bound);
      el.setAttribute("data-use", r.use);
      out.use.textContent = r.use;
      out.row.textContent = String(r.row);
      out.why.textContent = r.why;
      if (state.share >= 100) {
        before.textContent = "This op is the whole step, so the step gets faster by as much as the op does: ";
        out["step-bound"].textContent = "no limit";
        after.textContent = " from Amdahl's law (1 / (1 − share) has no bound at 100 %).";
      } else {
        before.textContent = "Even if this op took no time at all, the step could get at most ";
        out["step-bound"].textContent = (100 / (100 - state.share)).toFixed(2) + "×";
        after.textContent = " faster (1 / (1 − share)).";
      }
    }

    shareInput.addEventListener("input", function () {
      const v = readShare();
      if (v === null) {
        complain(false);
        return;
      }
      accept();
      state.share = v;
      render();
    });
    shareInput.addEventListener("change", function () {
      if (readShare() === null) {
        complain(true);
        shareInput.value = state.share;
      }
    });
    [[opSelect, "op"], [shapesSelect, "shapes"], [boundSelect, "bound"]].forEach(function (pair) {
      pair[0].addEventListener("change", function () {
        state[pair[1]] = pair[0].value;
        render();
      });
    });

    render();
  });
})();
